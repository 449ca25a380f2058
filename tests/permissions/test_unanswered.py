"""The start-up note when nobody can answer an ask: `serve` and `run -p` without a terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CONFIG = """\
toolhost: 1
servers:
  files:
    tools:
      echo:
        command: [echo, "{{ x }}"]
        params: {x: {type: string}}
      ls: {command: [ls]}
permissions:
  allow: [mcp__files__ls]
"""
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}}


def _serve(config: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    env["HOME"] = str(home)
    return subprocess.run([sys.executable, "-m", "toolhost", "serve", str(config)],
                          input=json.dumps(INIT) + "\n", capture_output=True, text=True,
                          env=env, timeout=120, check=False, start_new_session=True)


def test_serve_says_once_which_tools_an_unanswerable_ask_denies(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    out = _serve(config, tmp_path)
    assert out.returncode == 0, out.stderr
    notes = [x for x in out.stderr.splitlines() if "always denied" in x]
    assert len(notes) == 1, out.stderr
    assert "mcp__files__echo" in notes[0] and "mcp__files__ls" not in notes[0]
    assert "ask_mode: allow" in notes[0] and f"{config}:" in notes[0]


def test_no_note_when_every_tool_is_allowed_or_the_default_is_deny(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    for permissions in ("permissions:\n  allow: [mcp__files]\n",
                        "permissions:\n  default: deny\n",
                        "permissions:\n  ask_mode: allow\n"):
        config.write_text(CONFIG.split("permissions:")[0] + permissions)
        out = _serve(config, tmp_path)
        assert out.returncode == 0, out.stderr
        assert "always denied" not in out.stderr, (permissions, out.stderr)


def test_validates_note_says_serve_asks_a_client_that_can_elicit(tmp_path: Path) -> None:
    # serve elicits to clients that support it (docs/serve.md): the note must not say that
    # nobody can answer an ask under serve, only that a client that cannot elicit cannot.
    from toolhost.config.loader import load_config
    from toolhost.permissions.unanswered import unanswered_note

    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    note = unanswered_note(load_config(str(config), layers=False), "validate")
    assert note is not None and "mcp__files__echo" in str(note)
    assert "under `serve`, or" not in str(note)
    assert "does not support elicitation" in str(note)
