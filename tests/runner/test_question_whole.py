"""A question asked on ``/dev/tty`` (turns from a pipe, or ``-p`` with stdin not a terminal)
is shown whole, however slowly the terminal takes it: its end (the tail of a long value, and
``Allow?``) is never dropped."""

from __future__ import annotations

import fcntl
import os
import pty
import subprocess
import termios
from pathlib import Path

from tests.runner.cli_harness import CONFIG, FAKE_CLI_HEAD, TOOLHOST, fake_cli, read_until

# A question about a call whose value is 300,000 characters and then its tail
BIG = FAKE_CLI_HEAD + r'''
    elif m.get("type") == "control_response" and m["response"]["request_id"] == "q":
        send({{"type": "result", "subtype": "error_during_execution", "is_error": True,
              "result": "", "uuid": "u"}})
    elif m.get("type") == "user":
        send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": "x" * 300000 + "; THE-TAIL"}}, "tool_use_id": "t1"}}}})
'''


def test_the_whole_question_reaches_a_slow_terminal(tmp_path: Path) -> None:
    cli = fake_cli(tmp_path, BIG)
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG)
    master, slave = pty.openpty()
    name = os.ttyname(slave)

    def own_terminal() -> None:  # the controlling terminal, not on stdin
        os.setsid()
        fd = os.open(name, os.O_RDWR)
        fcntl.ioctl(fd, termios.TIOCSCTTY, 0)

    try:
        with subprocess.Popen([TOOLHOST, "run", str(config), "--cli", str(cli), "-p", "go"],
                              stdin=subprocess.DEVNULL, stdout=slave, stderr=slave,
                              preexec_fn=own_terminal,
                              env={**os.environ, "FAKE_LOG": str(tmp_path / "cli.log"),
                                   "TERM": "xterm"}) as process:
            try:
                first = read_until(master, "deny: ")
                assert "[s] show it all" in first, first[-500:]
                os.write(master, b"s\n")  # the whole value: 300 KB for the terminal
                whole = read_until(master, "deny: ", 60)
                assert "; THE-TAIL" in whole and whole.rstrip().endswith("deny:"), \
                    (len(whole), whole[-300:])
                os.write(master, b"n\n")
                read_until(master, "optional): ")
                os.write(master, b"\n")
                assert process.wait(timeout=60) == 1
            finally:
                if process.poll() is None:
                    process.kill()
    finally:
        os.close(master)
        os.close(slave)
