"""Secrets never in ``toolhost run``'s output: text, ``--output json``, failed checks."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import HERE, TOOLHOST

pytestmark = pytest.mark.e2e

SECRET = "hunter2-very-secret-token"

CONFIG = """\
toolhost: 1
servers:
  sec:
    env: {API_TOKEN: "${E2E_SECRET}"}
    tools:
      leak:
        description: Show the token (a careless tool)
        command: [sh, -c, 'echo "token=$API_TOKEN"']
      say:
        command: [echo, "{{ text }}"]
permissions:
  default: allow
  deny:
    - tool: mcp__sec__say
      when: {text: {glob: "*deny*"}}
      message: "no: ${E2E_SECRET}"
"""


@pytest.mark.parametrize("output", ["text", "json"])
def test_a_secret_a_tool_echoes_is_never_shown(
        cli: str, tmp_path: Path, scenario: Callable[[str], Path], output: str) -> None:
    config = tmp_path / "sec.yaml"
    config.write_text(CONFIG)
    script = scenario(f"""\
turns:
  - text: "I know it is {SECRET}"
    tool_calls:
      - {{tool: mcp__sec__leak, input: {{}}}}
      - {{tool: mcp__sec__say, input: {{text: "{SECRET}"}}}}
      - {{tool: mcp__sec__say, input: {{text: "deny {SECRET}"}}}}
  - expect_results:
      - {{equals: "wrong on purpose"}}
      - {{equals: "***"}}  # results are redacted on their way to the model too
      - {{is_error: true, contains: "no: "}}
    text: "Done with {SECRET}."
""")
    env = {**os.environ, "PYTHONPATH": str(HERE), "TOOLHOST_CLI": cli, "E2E_SECRET": SECRET}
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--script", str(script),
                           "-p", f"the token is {SECRET}", "--output", output],
                          capture_output=True, text=True, env=env, timeout=120, check=False)
    # The first check fails on purpose: its message quotes what the model received.
    assert done.returncode == 1, done.stderr
    assert "expected equals 'wrong on purpose', received 'token=***" in done.stderr
    assert SECRET not in done.stdout and SECRET not in done.stderr
    assert "***" in done.stdout
    if output == "text":
        assert "← mcp__sec__leak: token=***" in done.stdout
        assert 'mcp__sec__say(text="***")' in done.stdout
        assert "denied by " in done.stdout and ": no: ***" in done.stdout
        assert "Done with ***." in done.stdout


STREAM_CONFIG = """\
toolhost: 1
servers:
  s:
    env: {MY_TOKEN: "${E2E_SECRET}"}
    tools:
      env:
        command: [sh, -c, 'printf "%s" "$MY_TOKEN"']
permissions:
  default: allow
"""


@pytest.mark.parametrize("cut", [1, 7, 13, len(SECRET) - 1])
def test_a_secret_cut_across_streamed_deltas_is_hidden_when_joined(
        tmp_path: Path, cut: int) -> None:
    from .fakecli import run_fake, stream_event

    config = tmp_path / "sec.yaml"
    config.write_text(STREAM_CONFIG)
    text = f"token is {SECRET} ok"
    at = len("token is ") + cut
    partial = '{"text": "' + SECRET + '"}'
    lines = [stream_event({"type": "text_delta", "text": text[:at]}),
             stream_event({"type": "text_delta", "text": text[at:]}),
             stream_event({"type": "input_json_delta", "partial_json": partial[:10 + cut]}, 1),
             stream_event({"type": "input_json_delta", "partial_json": partial[10 + cut:]}, 1),
             {"type": "stream_event", "session_id": "s", "parent_tool_use_id": None,
              "event": {"type": "content_block_stop", "index": 0}}]
    done, _ = run_fake(tmp_path, config, lines, "--output", "json",
                       env={"E2E_SECRET": SECRET})
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    deltas = [e["event"]["delta"] for e in events if e["type"] == "stream_event"
              and e["event"]["type"] == "content_block_delta"]
    assert "".join(d.get("text", "") for d in deltas) == "token is *** ok"
    assert "".join(d.get("partial_json", "") for d in deltas) == '{"text": "***"}'
    pieces = [SECRET, SECRET[:cut], SECRET[cut:]]
    assert not [p for p in pieces if len(p) >= 6 and p in done.stdout]
