"""SIGTERM or SIGHUP while a permission question is open: the CLI's ``can_use_tool`` is
answered (a deny saying toolhost is stopping, and why) before the CLI's stdin closes, and the
audit log says the same. A host that stops never leaves a call unanswered. So is a
``tools/call`` whose question the second lock asked (the CLI did not ask first): its tool
never started, and it is not said to have "done part of its work"."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from tests.runner.cli_harness import ASKS, CONFIG, at_question, at_terminal, read_until

# as ASKS, but the turn calls mcp__s__echo without asking first: toolhost asks at tools/call
CALLS = ASKS.replace('''send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": "x"}}, "tool_use_id": "t1"}}}})''',
    '''send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "mcp_message", "server_name": "s", "message": {{
              "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {{
              "name": "echo", "arguments": {{"text": "x"}},
              "_meta": {{"claudecode/toolUseId": "t1"}}}}}}}}}})''')


@pytest.mark.parametrize("asked", ["can_use_tool", "tools/call"])
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)],
                         ids=["SIGTERM", "SIGHUP"])
def test_a_signal_at_a_question_answers_it_with_a_deny_before_the_cli_stops(
        tmp_path: Path, signum: int, status: int, asked: str) -> None:
    audit = tmp_path / "audit.jsonl"
    cli = ASKS if asked == "can_use_tool" else CALLS
    assert asked == "can_use_tool" or "tools/call" in cli  # the replacement above took
    with at_question(tmp_path, CONFIG + f"  audit_log: {audit}\n", cli) as (process, _master):
        process.send_signal(signum)
        assert process.wait(timeout=30) == status
    log = tmp_path / "cli.log"
    name = signal.Signals(signum).name
    why = f"Nobody answered the question about mcp__s__echo: toolhost is stopping ({name})."
    read = [json.loads(line) for line in log.read_text().splitlines()]
    answers = [m["response"] for m in read if m["type"] == "control_response"
               and m["response"]["request_id"] == "q"]
    deny = {"behavior": "deny", "message": why} if asked == "can_use_tool" else {
        "mcp_response": {"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": why}], "isError": True}}}
    assert answers == [{"subtype": "success", "request_id": "q", "response": deny}], read
    # one line: the question's deny (no "stopped" line: nothing started)
    [record] = [json.loads(line) for line in audit.read_text().splitlines()]
    assert record["decision"] == "deny" and record["tool_use_id"] == "t1", record
    assert record["answered_by"] == "nobody (question ended)"
    assert record["message"] == why


# as ASKS, but the turn asks about two calls at once
TWO = ASKS.replace('''send({{"type": "control_request", "request_id": "q", "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": "x"}}, "tool_use_id": "t1"}}}})''', '''for q in ("q", "q2"):
            send({{"type": "control_request", "request_id": q, "request": {{
              "subtype": "can_use_tool", "tool_name": "mcp__s__echo",
              "input": {{"text": q}}, "tool_use_id": "t" + q}}}})
        open(os.environ["FAKE_LOG"] + ".sent", "w").close()  # both are in toolhost's pipe''')


@pytest.mark.parametrize("asked", [["q"], ["q", "q2"]], ids=["one", "two"])
def test_the_terminal_closing_at_a_question_is_nobodys_answer(
        tmp_path: Path, asked: list[str]) -> None:
    # The read saw the hang-up before SIGHUP was handled: it was a person's Ctrl-D ("A person
    # denied", answered_by person), and the second question's audit line said so while the
    # CLI had been told "Nobody answered ... (SIGHUP)"
    audit = tmp_path / "audit.jsonl"
    cli = ASKS if len(asked) == 1 else TWO
    assert len(asked) == 1 or "q2" in cli  # the replacement above took
    with at_terminal(tmp_path, CONFIG + f"  audit_log: {audit}\n", cli) as (process, master):
        assert "> " in read_until(master, "> ")
        os.write(master, b"save it\n")
        assert "Allow?" in read_until(master, "Allow?")
        # (q2 may be unread by toolhost yet: the stop answers what the CLI wrote before it)
        sent = tmp_path / "cli.log.sent"
        deadline = time.monotonic() + 30
        while len(asked) > 1 and not sent.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        os.close(master)  # the terminal closed: a hang-up
        assert process.wait(timeout=30) == 129
    why = "Nobody answered the question about mcp__s__echo: toolhost is stopping (SIGHUP)."
    read = [json.loads(line) for line in (tmp_path / "cli.log").read_text().splitlines()]
    answers = sorted((m["response"]["request_id"], m["response"]["response"]) for m in read
                     if m["type"] == "control_response")
    assert answers == [(q, {"behavior": "deny", "message": why}) for q in asked], read
    records = [json.loads(line) for line in audit.read_text().splitlines()]
    uses = ["t1"] if len(asked) == 1 else ["t" + q for q in asked]
    assert sorted(r["tool_use_id"] for r in records) == uses
    for record in records:  # what the CLI was told, and nobody's
        assert record["message"] == why and record["answered_by"].startswith("nobody"), record


def test_ctrl_c_at_a_question_denies_the_one_queued_behind_it_saying_it_was_not_asked(
        tmp_path: Path) -> None:
    # The queued question (never shown) was denied "A person pressed Ctrl-C when asked
    # about ...". Each call still gets exactly one answer.
    with at_terminal(tmp_path, CONFIG, TWO) as (process, master):
        assert "> " in read_until(master, "> ")
        os.write(master, b"save it\n")
        assert "Allow?" in read_until(master, "Allow?")
        os.write(master, b"\x03")  # Ctrl-C at the first question
        read_until(master, "\n> ")
        os.write(master, b"\x04")  # Ctrl-D at the prompt: the session ends
        process.wait(timeout=30)
    read = [json.loads(line) for line in (tmp_path / "cli.log").read_text().splitlines()]
    answers = {m["response"]["request_id"]: m["response"]["response"]
               for m in read if m["type"] == "control_response"}
    assert answers == {
        "q": {"behavior": "deny",
              "message": "A person pressed Ctrl-C when asked about mcp__s__echo."},
        "q2": {"behavior": "deny", "message": "mcp__s__echo was not asked about: a person "
               "pressed Ctrl-C at an earlier question of this turn."}}, read
