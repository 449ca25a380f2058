"""SIGTERM or SIGHUP while a permission question is open: the CLI's ``can_use_tool`` is
answered (a deny saying toolhost is stopping, and why) before the CLI's stdin closes, and the
audit log says the same. A host that stops never leaves a call unanswered."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.runner.test_interrupt_order import CONFIG, at_question


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)],
                         ids=["SIGTERM", "SIGHUP"])
def test_a_signal_at_a_question_answers_it_with_a_deny_before_the_cli_stops(
        tmp_path: Path, signum: int, status: int) -> None:
    audit = tmp_path / "audit.jsonl"
    with at_question(tmp_path, CONFIG + f"  audit_log: {audit}\n") as (process, _master):
        process.send_signal(signum)
        assert process.wait(timeout=30) == status
    log = tmp_path / "cli.log"
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
