"""SIGTERM or SIGHUP while a permission question is open: the CLI's ``can_use_tool`` is
answered (a deny saying toolhost is stopping, and why) before the CLI's stdin closes, and the
audit log says the same. A host that stops never leaves a call unanswered."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import signal
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from tests.runner.test_interrupt_order import ASKS, CONFIG, _read_until

TOOLHOST = str(Path(sys.executable).parent / "toolhost")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)],
                         ids=["SIGTERM", "SIGHUP"])
def test_a_signal_at_a_question_answers_it_with_a_deny_before_the_cli_stops(
        tmp_path: Path, signum: int, status: int) -> None:
    cli = tmp_path / "cli.py"
    cli.write_text(ASKS.format(python=sys.executable))
    cli.chmod(0o755)
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG + f"  audit_log: {audit}\n")
    log = tmp_path / "cli.log"
    master, slave = pty.openpty()

    def own_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    try:
        with subprocess.Popen([TOOLHOST, "run", str(config), "--cli", str(cli)],
                              stdin=slave, stdout=slave, stderr=slave,
                              preexec_fn=own_terminal,
                              env={**os.environ, "FAKE_LOG": str(log), "TERM": "xterm"}
                              ) as process:
            try:
                assert "> " in _read_until(master, "> ")
                os.write(master, b"save it\n")
                assert "Allow?" in _read_until(master, "Allow?")
                process.send_signal(signum)
                assert process.wait(timeout=30) == status
            finally:
                if process.poll() is None:
                    process.kill()
    finally:
        os.close(master)
        os.close(slave)
    name = signal.Signals(signum).name
    why = f"Nobody answered the question about mcp__s__echo: toolhost is stopping ({name})."
    read = [json.loads(line) for line in log.read_text().splitlines()]
    answers = [m["response"] for m in read if m["type"] == "control_response"
               and m["response"]["request_id"] == "q"]
    assert answers == [{"subtype": "success", "request_id": "q",
                        "response": {"behavior": "deny", "message": why}}], read
    [record] = [json.loads(line) for line in audit.read_text().splitlines()]
    assert record["decision"] == "deny" and record["tool_use_id"] == "t1", record
    assert record["answered_by"] == "nobody (question ended)"
    assert record["message"] == why
