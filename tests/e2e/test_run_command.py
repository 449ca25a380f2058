"""``toolhost run CONFIG --script SCENARIO -p PROMPT`` as a subprocess, with the real CLI."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import CONFIG, read_log, run_toolhost

pytestmark = pytest.mark.e2e


def test_allowed_tool_gets_exact_arguments_and_model_gets_exact_result(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    script = scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: alpha, text: "two words"}}
  - expect_results:
      - {equals: "saved alpha: two words"}
    text: Saved it.
""")
    done = run_toolhost(cli, str(CONFIG), "--script", str(script), "-p", "save a note")
    assert done.returncode == 0, done.stderr
    assert read_log(tool_log) == [{"tool": "write_note", "name": "alpha", "text": "two words"}]
    assert '→ #1 mcp__e2e__write_note(name="alpha", text="two words")' in done.stdout
    assert "← mcp__e2e__write_note: saved alpha: two words" in done.stdout
    assert "Saved it." in done.stdout
    assert "— done: " in done.stdout


def test_denied_tool_never_runs_and_model_reads_the_message(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    script = scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: forbidden, text: x}}
  - expect_results:
      - {is_error: true, equals: "Forbidden notes are not allowed."}
    text: I may not.
""")
    # --no-manifests: the CLI does the MCP handshake itself (the other tests skip it)
    done = run_toolhost(cli, str(CONFIG), "--script", str(script), "-p", "go",
                        "--output", "json", "--no-manifests")
    assert done.returncode == 0, done.stderr
    assert read_log(tool_log) == []  # the backend was never called
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    result = messages[-1]
    assert result["type"] == "result" and result["subtype"] == "success"
    assert [d["tool_name"] for d in result["permission_denials"]] == ["mcp__e2e__write_note"]


def test_failed_scenario_check_fails_the_run_and_says_why(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    script = scenario("""\
turns:
  - tool_calls:
      - {tool: mcp__e2e__write_note, input: {name: beta, text: t}}
  - expect_results:
      - {equals: "saved gamma: t"}
    text: done
""")
    done = run_toolhost(cli, str(CONFIG), "--script", str(script), "-p", "go")
    assert done.returncode == 1
    assert (f"scenario check failed: {script}:5: turn 2, result of mcp__e2e__write_note "
            "(call toolu_scripted_01_1): expected equals 'saved gamma: t', received "
            "'saved beta: t'") in done.stderr


def test_cli_args_after_the_options_reach_the_cli(
        cli: str, tool_log: Path, scenario: Callable[[str], Path]) -> None:
    script = scenario("turns:\n  - text: Fine.\n")
    done = run_toolhost(cli, str(CONFIG), "--script", str(script), "-p", "hi", "--",
                        "--append-system-prompt", "be brief")
    assert done.returncode == 0, done.stderr
    # ... an option toolhost's allowlist does not know is refused before the CLI starts
    done = run_toolhost(cli, str(CONFIG), "--script", str(script), "-p", "hi", "--",
                        "--no-such-option-here")
    assert done.returncode == 2
    assert "'--no-such-option-here' is not an option toolhost knows" in done.stderr
    assert "Traceback" not in done.stderr
