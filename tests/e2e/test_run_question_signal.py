"""SIGTERM or SIGHUP while a permission question waits for a person (a real terminal, tmux):
the run stops, the CLI's ``can_use_tool`` is answered with a deny before its stdin closes, and
the audit log says the same (nobody answered: toolhost is stopping, and the signal)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from .fakecli import ECHO_SERVER, FAKE_CLI, lines_file
from .tty import Pane, assert_nothing_left, kill_leftovers, tmux_available

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(not tmux_available(), reason="tmux is not installed")]

CONFIG = ECHO_SERVER + """\
permissions:
  default: ask
  audit_log: AUDIT
"""


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)],
                         ids=["SIGTERM", "SIGHUP"])
def test_a_question_ended_by_a_signal_is_in_the_audit_log(tmp_path: Path, signum: int,
                                                          status: int) -> None:
    audit = tmp_path / "audit.jsonl"
    config = tmp_path / "c.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(audit)))
    lines = lines_file(tmp_path, [{"type": "control_request", "request_id": "q1", "request": {
        "subtype": "can_use_tool", "tool_name": "mcp__s__echo", "input": {"text": "hi"},
        "tool_use_id": "toolu_q1"}}])
    pane = Pane(tmp_path, str(FAKE_CLI), [str(config), "-p", "hi"],
                env={"FAKE_LINES": str(lines), "FAKE_WAIT": "120",
                     "FAKE_LOG": str(tmp_path / "fake.log")})
    try:
        pane.wait_for("Allow?")
        os.kill(pane.pid, signum)
        assert pane.exit_status() == status, pane.screen()
        assert_nothing_left(pane.token)
    finally:
        pane.close()
        kill_leftovers(pane.token)
    [record] = [json.loads(line) for line in audit.read_text().splitlines()]
    name = signal.Signals(signum).name
    assert record["tool"] == "mcp__s__echo" and record["decision"] == "deny", record
    assert record["tool_use_id"] == "toolu_q1"
    assert record["answered_by"] == "nobody (question ended)"
    why = f"Nobody answered the question about mcp__s__echo: toolhost is stopping ({name})."
    assert record["message"] == why
    read = [json.loads(line[3:]) for line in (tmp_path / "fake.log").read_bytes().splitlines()
            if line.startswith(b"IN {")]
    answers = [m["response"] for m in read if m.get("type") == "control_response"
               and m["response"].get("request_id") == "q1"]
    assert answers == [{"subtype": "success", "request_id": "q1",
                        "response": {"behavior": "deny", "message": why}}], read
