"""The flood against a real ``toolhost run`` process, with a fake CLI on the other end.

``flood_cli.py`` plays the Claude CLI over real pipes: hundreds of interleaved control
requests (quick, slow, failing and cancelled tool calls, unknown servers and tools,
permission checks that allow, deny and rewrite, notifications, unknown subtypes), garbage
lines, a 10 MB line, lines split across writes, both kinds of cancellation. It checks that
every request got exactly one matching answer (withdrawn ones none) and that the host
still serves afterwards, and reports back through ``$FLOOD_REPORT``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent

CONFIG = """\
toolhost: 1
servers:
  bb:
    tools:
      echo: {python: "flood_tools:echo"}
      slow: {python: "flood_tools:slow", annotations: {readOnlyHint: true}}
      boom: {python: "flood_tools:boom"}
      hang: {python: "flood_tools:hang"}
      secret: {python: "flood_tools:secret"}
      shout: {python: "flood_tools:shout"}
      size: {python: "flood_tools:size"}
permissions:
  default: allow
  deny:
    - tool: mcp__bb__secret
      message: no secrets
  allow:
    - tool: mcp__bb__shout
      rewrite: {set: {word: REWRITTEN}}
"""


@pytest.mark.parametrize("seed", ["7", "11"])
def test_flood_through_toolhost_run_is_answered_one_for_one(tmp_path: Path, seed: str) -> None:
    config = tmp_path / "flood.yaml"
    config.write_text(CONFIG)
    fake_cli = tmp_path / "claude"
    fake_cli.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "flood_cli.py"}" "$@"\n')
    fake_cli.chmod(0o755)
    report = tmp_path / "report.json"
    env = {**os.environ, "FLOOD_REPORT": str(report), "FLOOD_SEED": seed,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "toolhost", "run", str(config), "-p", "flood",
                           "--cli", str(fake_cli)], capture_output=True, text=True, env=env,
                          timeout=240, stdin=subprocess.DEVNULL, start_new_session=True)
    assert report.exists(), done.stdout + done.stderr[-3000:]
    outcome = json.loads(report.read_text())
    assert outcome["problems"] == []
    assert outcome["requests"] > 500
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
