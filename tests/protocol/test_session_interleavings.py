"""Interleavings of the control protocol no earlier test tried (round 7): initialize twice,
batches, cancels and responses for ids never sent or already answered, a server name with
``__``, notifications between calls, odd ids and params, unknown subtypes. Every request
gets exactly one answer, none is fatal, and an honest call after them all is answered."""

from __future__ import annotations

from typing import Any

import pytest

from .session_harness import running_session

pytestmark = pytest.mark.anyio

CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "greet", "arguments": {"name": "Alice"}}}
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "c", "version": "1"}}}


def rpc(rid: int | dict[str, int] | None, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return message


def note(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


async def test_odd_interleavings_each_get_one_answer_and_the_session_goes_on() -> None:
    async with running_session() as (_, cli):
        await cli.mcp("i1", INIT)
        await cli.mcp("i2", INIT)  # initialize twice
        for rid, batch in (("b1", [CALL, CALL]), ("b2", [])):  # JSON-RPC batches
            await cli.request(rid, {"subtype": "mcp_message", "server_name": "demo",
                                    "message": batch})
        await cli.mcp("c1", CALL)
        await cli.wait_for(lambda: "c1" in cli.answers())
        for cancel in ({"request_id": "c1"}, {"request_id": "never"}, {}):  # answered/unknown
            await cli.send({"type": "control_cancel_request", **cancel})
        for response in ({"subtype": "success", "request_id": "nosuch", "response": {}},
                         {"subtype": "error", "request_id": 5, "error": "x"}, "x", None):
            await cli.send({"type": "control_response", "response": response})
        await cli.mcp("n1", note("notifications/cancelled", {"requestId": 2}))
        await cli.mcp("n2", note("notifications/progress", {"progressToken": 2, "progress": 1}))
        await cli.mcp("s1", CALL, server="a__b")
        await cli.mcp("p1", rpc(9, "ping"))
        await cli.mcp("r1", {"jsonrpc": "2.0", "id": 10, "result": {}})  # a response, as a call
        await cli.mcp("r2", {**rpc(11, "tools/list"), "jsonrpc": "1.0"})
        await cli.mcp("r3", rpc(None, "tools/list"))
        await cli.mcp("r4", rpc({"a": 1}, "tools/list"))
        await cli.mcp("r5", rpc(12, "tools/call", {"name": "greet"}))
        await cli.mcp("r6", rpc(13, "tools/call", {"name": "greet", "arguments": [1]}))
        await cli.mcp("r7", rpc(14, "tools/call", []))
        await cli.mcp("r8", rpc(15, "resources/list"))
        for rid, ask in (("k1", {"tool_name": "mcp__demo__greet", "input": {"name": "x"}}),
                         ("k2", {"tool_name": "mcp__demo__greet", "input": "x"}), ("k3", {})):
            await cli.request(rid, {"subtype": "can_use_tool", **ask})
        await cli.request("h1", {"subtype": "hook_callback", "callback_id": "x", "input": {}})
        await cli.request("z1", {"subtype": "some_future_thing"})  # a newer CLI's subtype
        await cli.mcp("last", CALL)
        await cli.wait_for(lambda: "last" in cli.answers())
    answers = cli.answers()
    assert all(len(each) == 1 for each in answers.values()), answers
    assert set(answers) == {"i1", "i2", "b1", "b2", "c1", "n1", "n2", "s1", "p1", "r1", "r2",
                            "r3", "r4", "r5", "r6", "r7", "r8", "k1", "k2", "k3", "h1", "z1",
                            "last"}
    assert cli.answer("last")["response"]["mcp_response"]["result"]["isError"] is False
    assert cli.answer("i2")["response"]["mcp_response"]["result"]["serverInfo"]["name"] == "demo"
    assert cli.answer("k1")["response"]["behavior"] == "deny"  # no policy: fail closed
    assert "a__b" in cli.answer("s1")["response"]["mcp_response"]["error"]["message"]
    for rid in ("b1", "b2", "k2", "k3", "h1", "z1"):
        assert cli.answer(rid)["subtype"] == "error"


def _line(request_id: bytes, message_id: bytes = b"2") -> bytes:
    return (b'{"type":"control_request","request_id":' + request_id + b',"request":'
            b'{"subtype":"mcp_message","server_name":"demo","message":{"jsonrpc":"2.0","id":'
            + message_id + b',"method":"tools/call","params":{"name":"greet","arguments":'
            b'{"name":"x"}}}}}\n')


async def test_ids_of_every_json_type_a_byte_at_a_time_and_half_a_line_at_the_end() -> None:
    # round 8: request ids (of the control request and of the JSON-RPC call inside it) of
    # every JSON type, numbers past what a float holds or past Python's digit limit; a line
    # written one byte at a time; a cancel storm; half a request, then the end of input.
    # Every answerable request is answered once, none is fatal, the honest call answered.
    odd = [b"1e400", b"-1e400", b"9" * 5000, b"123456789012345678901234567890", b"1.5",
           b"-0", b"true", b"[1]", b'{"a":1}', b"null", b'"\\ud800"']
    async with running_session() as (_, cli):
        for value in odd:
            await cli.send_raw(_line(value))  # as the control request's id
        for n, value in enumerate(odd):
            await cli.send_raw(_line(b'"m%d"' % n, value))  # as the JSON-RPC call's id
        for byte in _line(b'"slow"'):
            await cli.send_raw(bytes([byte]))
        await cli.send_raw(b"".join(b'{"type":"control_cancel_request","request_id":"n%d"}\n'
                                    % i for i in range(2000)))
        await cli.mcp("last", CALL)
        await cli.wait_for(lambda: "last" in cli.answers() and "slow" in cli.answers())
        await cli.send_raw(b'{"type":"control_request","request_id":"half","request":{"sub')
    answers = cli.answers()
    assert all(len(each) == 1 for each in answers.values()), answers
    assert {"last", "slow", "half", 123456789012345678901234567890, 1.5, "\ud800"} <= set(answers)
    assert {f"m{n}" for n in range(len(odd))} <= set(answers)
    assert answers["half"][0]["subtype"] == "error"
    for rid in ("last", "slow"):
        assert cli.answer(rid)["response"]["mcp_response"]["result"]["isError"] is False
