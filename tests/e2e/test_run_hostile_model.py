"""A model that is not tidy, through the real CLI: 30 parallel calls in one reply (allowed,
denied by a rule, asked with nobody to ask, unknown tools, an ``mcp__`` server that does not
exist, an input that is no object), then a call cut mid-JSON by ``max_tokens``, then a reply
of thinking alone. Every tool_use gets exactly one result (the scripted model checks it on
every request), each call line of the transcript one result line, and only the allowed calls
run."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from .conftest import CONFIG, HERE, TOOLHOST, read_log

pytestmark = pytest.mark.e2e


def _calls() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tool call, expected result) pairs, 30 of them, the kinds interleaved."""
    kinds = [
        ({"tool": "mcp__e2e__write_note", "input": {"name": "n{i}", "text": "t"}},
         {"equals": "saved n{i}: t"}),
        ({"tool": "mcp__e2e__write_note", "input": {"name": "forbidden", "text": "{i}"}},
         {"is_error": True, "equals": "Forbidden notes are not allowed."}),
        ({"tool": "mcp__e2e__peek", "input": {}},  # ask rule, no terminal: denied, said why
         {"is_error": True, "contains": "nobody can be asked"}),
        ({"tool": "mcp__e2e__no_such_tool", "input": {}},
         {"is_error": True, "contains": "No such tool available"}),
        ({"tool": "mcp__ghost__tool", "input": {}},
         {"is_error": True, "contains": "No such tool available"}),
        ({"tool": "mcp__e2e__write_note", "raw_input": '"not an object"'},
         {"is_error": True}),
    ]
    out = []
    for i in range(30):
        call, result = kinds[i % len(kinds)]
        out.append((json.loads(json.dumps(call).replace("{i}", str(i))),
                    json.loads(json.dumps(result).replace("{i}", str(i)))))
    return out


def test_every_call_of_an_untidy_model_is_answered_exactly_once(
        cli: str, tool_log: Path, tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG.read_text().replace("    - mcp__e2e__peek\n", "")
                      + "  ask:\n    - mcp__e2e__peek\n")
    calls = _calls()
    script = tmp_path / "scenario.yaml"
    script.write_text(json.dumps({"turns": [
        {"thinking": "thirty at once", "text": "Working.", "tool_calls": [c for c, _ in calls]},
        {"expect_results": [r for _, r in calls], "stop_reason": "max_tokens",
         "tool_calls": [{"tool": "mcp__e2e__write_note", "raw_input": '{"name": "cut", "te'}]},
        {"expect_results": [{"is_error": True, "contains": "could not be parsed as JSON"}],
         "thinking": "nothing more to say"},
    ]}))
    env = {**os.environ, "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli}
    # a session of its own: no controlling terminal to ask on, as in CI
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--script", str(script),
                           "-p", "go"], capture_output=True, text=True, env=env, timeout=120,
                          check=False, stdin=subprocess.DEVNULL, start_new_session=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "scenario check failed" not in done.stderr and "Traceback" not in done.stderr
    assert sorted(e["name"] for e in read_log(tool_log)) == sorted(
        f"n{i}" for i in range(0, 30, 6))
    shown = re.findall(r"^→ (#\d+) ", done.stdout, re.M)
    answered = re.findall(r"^  (#\d+) [←✗] ", done.stdout, re.M)
    assert len(shown) == 31 and sorted(shown) == sorted(answered), done.stdout
    assert "no result came back" not in done.stdout
    # the last reply was thinking alone: said so, not a bare "— done"
    assert done.stdout.splitlines()[-2].startswith("(the model ended the turn with no text")
