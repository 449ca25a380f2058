"""A stdio client that closes our input while a call waits for its answer to ``ctx.elicit``
(``nc -N`` style: it still reads our output): the question fails at once, so the call
answers an error result the client can read, instead of waiting out the grace and being
cancelled unanswered. In process: the real StdioServer and core over OS pipes."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import anyio

from tests.mcp.mcp_testtools import make_tool
from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.results import ToolResult
from toolhost.serve.stdio import StdioServer

INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
    "clientInfo": {"name": "t", "version": "1"}}}


async def ask(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    answer = await ctx.elicit("Go on?")
    return ToolResult.text(f"answered {answer.action}")


def test_closing_the_input_fails_what_the_calls_asked() -> None:
    core = McpServer("demo", "1", [make_tool("ask", ask, schema={"type": "object"})])
    to_server, from_client = os.pipe()
    to_client, from_server = os.pipe()
    with open(to_server, "rb", buffering=0) as reader, \
            open(from_server, "wb", buffering=0) as writer, \
            open(to_client, "rb") as out:
        server = StdioServer(core, reader, writer, grace=30)
        for message in (INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "ask", "arguments": {}}}):
            os.write(from_client, json.dumps(message).encode() + b"\n")

        async def run() -> None:
            # (server.run returns once the call has answered; before: after the 30 s grace)
            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(server.run)
                    while not len(server._pending):  # the call has asked
                        await anyio.sleep(0.01)
                    os.close(from_client)  # the client closes our input, unanswered

        anyio.run(run)
        writer.close()
        answers = [json.loads(line) for line in out.read().splitlines()]
    call = next(a for a in answers if a.get("id") == 1)
    assert call["result"]["isError"] is True
    assert "closed its input" in call["result"]["content"][0]["text"], call
