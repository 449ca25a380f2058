"""Several requests in one read (``PipeLines``): a withdrawal read in the same chunk as its
request stops it before it starts, however JSON spells it, and every other request of the
read is answered once, in the order they began. (A request with lines behind it waits a
turn in a task of its own; starting it at once instead was measured and not kept: see
docs/protocol.md, "a thirty-fourth look". These hold any such change to the promise.)

Run over in-memory streams and real OS pipes (tests/protocol/conftest.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from .session_harness import running_session
from .test_session_inline import can_use

pytestmark = pytest.mark.anyio


def call(rid: str, rpc_id: int, name: str) -> bytes:
    return (json.dumps({"type": "control_request", "request_id": rid, "request": {
        "subtype": "mcp_message", "server_name": "demo",
        "message": {"jsonrpc": "2.0", "id": rpc_id, "method": "tools/call",
                    "params": {"name": "greet", "arguments": {"name": name}}}}})
            + "\n").encode()


# the withdrawal as JSON may spell it: plainly, or with an escape in its type
WITHDRAWALS = [b'{"type":"control_cancel_request","request_id":"c2"}\n',
               b'{"type":"control_\\u0063ancel_request","request_id":"c2"}\n',
               b'{"type":"\\u0063ontrol_cancel_request","request_id":"c2"}\n']


@pytest.mark.parametrize("withdrawal", WITHDRAWALS, ids=["plain", "escaped", "escaped-head"])
async def test_a_withdrawal_in_the_same_read_stops_its_request_before_it_starts(
        _transport: str, withdrawal: bytes) -> None:
    async with running_session() as (_, cli):
        # (c2 first: the first answer of a loop turn is written at once, the others of the
        # turn a step later, so only the first would be out before the withdrawal is read)
        await cli.send_raw(call("c2", 2, "Cy") + withdrawal + call("c1", 1, "Ann")
                           + call("c3", 3, "Di"))
        await cli.wait_for(lambda: {"c1", "c3"} <= cli.answers().keys())
        await cli.request("last", can_use("last", "Bob"))
        await cli.wait_for(lambda: "last" in cli.answers())
    answers = cli.answers()
    assert "c2" not in answers  # withdrawn: no answer at all
    assert len(answers["c1"]) == 1 and len(answers["c3"]) == 1


async def test_a_read_of_many_calls_answers_each_once_in_order_of_their_start(
        _transport: str) -> None:
    async with running_session() as (_, cli):
        await cli.send_raw(b"".join(call(f"c{i}", i, f"n{i}") for i in range(40)))
        await cli.wait_for(lambda: all(f"c{i}" in cli.answers() for i in range(40)))
    order = [line["response"]["request_id"] for line in cli.lines
             if line.get("type") == "control_response"]
    assert order == [f"c{i}" for i in range(40)]
    for i in range(40):
        result: dict[str, Any] = cli.answer(f"c{i}")["response"]["mcp_response"]["result"]
        assert result["content"][0]["text"] == f"Hello, n{i}!"
