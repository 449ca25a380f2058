"""SIGTERM or SIGHUP while a permission question is open: the CLI's ``can_use_tool`` is
answered (a deny saying toolhost is stopping, and why) before the CLI's stdin closes, and the
audit log says the same. A host that stops never leaves a call unanswered. So is a
``tools/call`` whose question the second lock asked (the CLI did not ask first): its tool
never started, and it is not said to have "done part of its work"."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from tests.runner.cli_harness import ASKS, CONFIG, at_question

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
