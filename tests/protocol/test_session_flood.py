"""A flood: hundreds of concurrent requests among garbage; every valid one answered once."""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.results import ToolResult

from .session_harness import make_tool, running_session

pytestmark = pytest.mark.anyio

N_CALLS = 300
N_PERMISSIONS = 200


async def jittery(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    await anyio.sleep(random.random() / 500)  # finish out of order
    return ToolResult.text(f"Hello, {arguments['name']}!")


async def policy(tool_name: str, tool_input: dict[str, Any],
                 request: dict[str, Any]) -> Decision:
    await anyio.sleep(random.random() / 500)
    if int(tool_input["name"][1:]) % 3 == 0:
        return Decision("deny", message=f"no {tool_input['name']}")
    return Decision("allow")


async def test_flood_every_valid_request_answered_exactly_once() -> None:
    random.seed(1234)
    servers = {name: McpServer(name, "1", [make_tool("greet", jittery, server=name)])
               for name in ("demo", "second")}
    lines: list[bytes] = []
    expected: dict[str, Any] = {}
    for i in range(N_CALLS):
        server = "demo" if i % 2 else "second"
        message = {"jsonrpc": "2.0", "id": i, "method": "tools/call",
                   "params": {"name": "greet", "arguments": {"name": f"n{i}"}}}
        rid = f"call-{i}"
        lines.append(json.dumps({"type": "control_request", "request_id": rid, "request": {
            "subtype": "mcp_message", "server_name": server, "message": message}}).encode())
        expected[rid] = ("call", i)
    for i in range(N_PERMISSIONS):
        rid = f"perm-{i}"
        lines.append(json.dumps({"type": "control_request", "request_id": rid, "request": {
            "subtype": "can_use_tool", "tool_name": "mcp__demo__greet",
            "input": {"name": f"n{i}"}}}).encode())
        expected[rid] = ("perm", i)
    for i in range(50):
        rid = f"unknown-{i}"
        lines.append(json.dumps({"type": "control_request", "request_id": rid,
                                 "request": {"subtype": f"made_up_{i}"}}).encode())
        expected[rid] = ("unknown", i)
        rid = f"init-{i}"
        lines.append(json.dumps({"type": "control_request", "request_id": rid, "request": {
            "subtype": "mcp_message", "server_name": "demo",
            "message": {"jsonrpc": "2.0", "method": "notifications/initialized"}}}).encode())
        expected[rid] = ("ack", i)
    garbage = [b"{not json", b"[]", b'"a string"', b"null", b'{"type": "control_request"}',
               b'{"type": "control_response"}', b'{"type": "control_response", "response": 1}',
               b"\xff\xfe\x00", b'{"type": "control_request", "request_id": 5}']
    for _ in range(100):
        lines.append(random.choice(garbage))
    random.shuffle(lines)
    payload = b"\n".join(lines) + b"\n"

    async with running_session(servers, permission=policy) as (_, cli):
        # Uneven chunks, so lines straddle reads.
        pos = 0
        while pos < len(payload):
            size = random.randint(1, 9000)
            await cli.send_raw(payload[pos:pos + size])
            pos += size
        await cli.wait_for(lambda: set(expected) <= cli.answers().keys(), timeout=30)

    answers = cli.answers()
    # a request_id that is a number is refused under that id, each time (runner5 R3)
    assert all(a["subtype"] == "error" for a in answers.pop(5, ()))  # type: ignore[call-overload]
    assert set(answers) == set(expected)
    for rid, (kind, i) in expected.items():
        (answer,) = answers[rid]  # exactly once
        if kind == "call":
            mcp = answer["response"]["mcp_response"]
            assert mcp["id"] == i
            assert mcp["result"]["content"][0]["text"] == f"Hello, n{i}!"
        elif kind == "perm":
            behavior = answer["response"]["behavior"]
            assert behavior == ("deny" if i % 3 == 0 else "allow"), rid
        elif kind == "unknown":
            assert answer["subtype"] == "error" and f"made_up_{i}" in answer["error"]
        else:
            assert answer["response"] == {"mcp_response": {"jsonrpc": "2.0", "result": {}}}
