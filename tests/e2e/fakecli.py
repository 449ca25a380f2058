"""``toolhost run`` against ``fake_cli.py`` (a CLI that sends what a test wrote, raw)."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

from .conftest import HERE, TOOLHOST

FAKE_CLI = HERE / "fake_cli.py"

# A server with one command tool, mcp__s__echo: a test adds its own permissions (and tools)
ECHO_SERVER = """\
toolhost: 1
servers:
  s:
    tools:
      echo:
        command: [printf, "%s", "{{ text }}"]
        params: {text: {type: string}}
"""


def lines_file(tmp_path: Path, lines: list[Any]) -> Path:
    """Lines for the fake to send: objects as JSON, strings as they are (``#SLEEP 1``)."""
    path = tmp_path / "lines.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n"
                            for x in lines))
    return path


def run_fake(tmp_path: Path, config: Path, lines: list[Any], *args: str,
             env: dict[str, str] | None = None, wait: float = 1, timeout: float = 60,
             turns: float | None = None,
             until: str | None = None) -> tuple[subprocess.CompletedProcess[str], str]:
    """``toolhost run CONFIG --cli fake_cli.py -p hi ARGS``, no terminal; the result and what
    toolhost sent the fake (its log). With ``turns``, interactive instead: one turn typed on
    stdin, which stays open that many seconds (the session goes on after the turn), or until
    the fake's log holds ``until`` (at most ``timeout`` seconds)."""
    log = tmp_path / "fake.log"
    full = {**os.environ, "PYTHONPATH": str(HERE), "FAKE_LOG": str(log),
            "FAKE_LINES": str(lines_file(tmp_path, lines)), "FAKE_WAIT": str(wait),
            **(env or {})}
    argv = [str(TOOLHOST), "run", str(config), "--cli", str(FAKE_CLI), *args]
    if turns is None:
        done = subprocess.run([*argv, "-p", "hi"], capture_output=True, text=True, env=full,
                              timeout=timeout, check=False, stdin=subprocess.DEVNULL,
                              start_new_session=True)
    else:
        out_path, err_path = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
        with out_path.open("w") as out, err_path.open("w") as err, subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=out, stderr=err, text=True, env=full,
                start_new_session=True) as process:
            assert process.stdin is not None
            process.stdin.write("hi\n")
            process.stdin.flush()
            deadline = time.monotonic() + (timeout if until else turns)
            while time.monotonic() < deadline and not (
                    until and log.exists() and until in log.read_text(errors="replace")):
                time.sleep(0.2)
            process.stdin.close()
            process.wait(timeout=timeout)
        done = subprocess.CompletedProcess(argv, process.returncode, out_path.read_text(),
                                           err_path.read_text())
    return done, log.read_text(errors="replace") if log.exists() else ""


def stream_event(delta: dict[str, Any], index: int = 0) -> dict[str, Any]:
    return {"type": "stream_event", "uuid": "u", "session_id": "s", "parent_tool_use_id": None,
            "event": {"type": "content_block_delta", "index": index, "delta": delta}}
