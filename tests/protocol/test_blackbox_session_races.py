"""Cancellations that arrive in the same read as the request they name (found by the flood).

When several lines come in one read, the session spawns a task for each request but the
last, which it serves inline. A cancellation right behind its request used to overtake it:
the request had not started, so there was nothing to cancel, and a call that never ends
then hung forever (notifications/cancelled) or was answered although withdrawn
(control_cancel_request).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .session_harness import running_session
from .test_session_cancel import Blocker, call, servers

pytestmark = pytest.mark.anyio


def control_line(request_id: str, request: dict[str, Any]) -> bytes:
    return json.dumps({"type": "control_request", "request_id": request_id,
                       "request": request}).encode() + b"\n"


def mcp_line(request_id: str, message: dict[str, Any], server: str = "demo") -> bytes:
    return control_line(request_id, {"subtype": "mcp_message", "server_name": server,
                                     "message": message})


def cancelled(jsonrpc_id: int) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": jsonrpc_id, "reason": "user interrupt"}}


async def test_notifications_cancelled_in_the_same_read_as_its_call() -> None:
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        # One write: the call is spawned, the cancellation (last line) is served inline.
        await cli.send_raw(mcp_line("call", call(7, "a")) + mcp_line("cancel", cancelled(7)))
        await cli.wait_for(lambda: {"call", "cancel"} <= set(cli.answers()))
        answer = cli.answer("call")["response"]["mcp_response"]
        assert answer == {"jsonrpc": "2.0", "id": 7,
                          "error": {"code": -32800, "message": "Request cancelled"}}
        assert cli.answer("cancel")["response"] == {"mcp_response": {"jsonrpc": "2.0",
                                                                     "result": {}}}
        assert session.in_flight == 0


async def test_control_cancel_request_in_the_same_read_as_its_request() -> None:
    blocker = Blocker()
    async with running_session(servers(blocker)) as (session, cli):
        await cli.send_raw(mcp_line("call", call(8, "a"))
                           + json.dumps({"type": "control_cancel_request",
                                         "request_id": "call"}).encode() + b"\n"
                           + mcp_line("ping", {"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        await cli.wait_for(lambda: "ping" in cli.answers())
        # Withdrawn before it started: it never runs and is never answered.
        assert "call" not in cli.answers()
        assert blocker.started == []
        assert session.in_flight == 0


async def test_withdrawing_one_of_many_buffered_requests_leaves_the_others() -> None:
    blocker = Blocker()
    async with running_session(servers(blocker)) as (_, cli):
        lines = [mcp_line(f"p{i}", {"jsonrpc": "2.0", "id": i, "method": "ping"})
                 for i in range(20)]
        lines.insert(10, json.dumps({"type": "control_cancel_request",
                                     "request_id": "p5"}).encode() + b"\n")
        await cli.send_raw(b"".join(lines))
        expected = {f"p{i}" for i in range(20)} - {"p5"}
        await cli.wait_for(lambda: expected <= set(cli.answers()))
        assert set(cli.answers()) == expected
        assert all(len(v) == 1 for v in cli.answers().values())
