"""Ctrl-C at a permission question: the CLI reads the ``interrupt`` before the question's
deny, so it never takes the deny as the turn going on (it asked the model again, within the
turn the person interrupted: seen under load with the real CLI)."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

from tests.runner.cli_harness import at_question, read_until


def test_ctrl_c_at_a_question_sends_the_interrupt_before_the_deny(tmp_path: Path) -> None:
    with at_question(tmp_path) as (process, master):
        process.send_signal(signal.SIGINT)  # Ctrl-C, as the terminal sends it
        shown = read_until(master, "the turn interrupted")
        assert "the call is denied and the turn interrupted" in shown, shown
        read_until(master, "> ")
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
