"""Ctrl-C at a permission question: the CLI reads the ``interrupt`` before the question's
deny, so it never takes the deny as the turn going on (it asked the model again, within the
turn the person interrupted: seen under load with the real CLI)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

TOOLHOST = str(Path(sys.executable).parent / "toolhost")

# Logs every line it reads; a turn asks about mcp__s__echo, ends when the answer comes
ASKS = r'''#!{python}
import json, os, sys
log = open(os.environ["FAKE_LOG"], "ab", buffering=0)
def send(o):
    print(json.dumps(o), flush=True)
for line in sys.stdin:
    log.write(line.encode())
    m = json.loads(line)
    if m.get("type") == "control_request":
        send({{"type": "control_response", "response": {{"subtype": "success",
              "request_id": m["request_id"], "response": {{}}}}}})
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "q":
        send({{"type": "result", "subtype": "error_during_execution", "is_error": True,
              "result": "", "uuid": "u"}})
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": "x"}}, "tool_use_id": "t1"}}}})
'''

ECHO_CONFIG = """\
toolhost: 1
servers:
  s:
    tools:
      echo:
        command: [printf, "%s", "{{ text }}"]
        params: {text: {type: string}}
"""
CONFIG = ECHO_CONFIG + "permissions:\n  default: ask\n"


def _read_until(master: int, text: str, seconds: float = 30) -> str:
    data = b""
    deadline = time.monotonic() + seconds
    while text.encode() not in data and time.monotonic() < deadline:
        if select.select([master], [], [], 0.1)[0]:
            try:
                data += os.read(master, 65536)
            except OSError:
                break
    return data.decode(errors="replace")


@contextmanager
def at_question(tmp_path: Path, config_text: str = CONFIG, cli_text: str = ASKS
                ) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``toolhost run`` at a real terminal with the fake CLI of ``cli_text`` (``ASKS``; its
    log: ``tmp_path/cli.log``), a turn typed and its permission question shown: the process
    and the terminal's master end (killed and closed after)."""
    cli = tmp_path / "cli.py"
    cli.write_text(cli_text.format(python=sys.executable))
    cli.chmod(0o755)
    config = tmp_path / "c.yaml"
    config.write_text(config_text)
    master, slave = pty.openpty()

    def own_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        with subprocess.Popen([TOOLHOST, "run", str(config), "--cli", str(cli)],
                              stdin=slave, stdout=slave, stderr=slave,
                              preexec_fn=own_terminal,
                              env={**os.environ, "FAKE_LOG": str(tmp_path / "cli.log"),
                                   "TERM": "xterm"}) as process:
            try:
                assert "> " in _read_until(master, "> ")
                os.write(master, b"save it\n")
                assert "Allow?" in _read_until(master, "Allow?")
                yield process, master
            finally:
                if process.poll() is None:
                    process.kill()
    finally:
        os.close(master)
        os.close(slave)


def test_ctrl_c_at_a_question_sends_the_interrupt_before_the_deny(tmp_path: Path) -> None:
    with at_question(tmp_path) as (process, master):
        process.send_signal(signal.SIGINT)  # Ctrl-C, as the terminal sends it
        shown = _read_until(master, "the turn interrupted")
        assert "the call is denied and the turn interrupted" in shown, shown
        _read_until(master, "> ")
        os.write(master, b"\x04")  # Ctrl-D at the prompt: the end
        process.wait(timeout=30)
    log = tmp_path / "cli.log"
    read = [json.loads(line) for line in log.read_text().splitlines()]
    kinds = [m["request"]["subtype"] if m["type"] == "control_request"
             else m["response"]["request_id"] if m["type"] == "control_response"
             else m["type"] for m in read]
    assert "interrupt" in kinds and "q" in kinds, kinds
    assert kinds.index("interrupt") < kinds.index("q"), kinds
    deny = read[kinds.index("q")]["response"]["response"]
    assert deny["behavior"] == "deny", deny
