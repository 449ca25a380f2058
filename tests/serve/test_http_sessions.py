"""``DELETE`` of a session whose call waits for the client's answer to ``ctx.elicit``: the
question fails at once (no answer can come: the client's POST of one would find the session
unknown), so the call answers instead of holding its place for the 300 s an ask may wait.
In process: the real ASGI app and core."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import httpx

from tests.mcp.mcp_testtools import make_tool
from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.results import ToolResult
from toolhost.serve.http import HttpServer

from .test_route_headers import ACCEPT

INIT = {"protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "t", "version": "1"}}


async def ask(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    answer = await ctx.elicit("Go on?")
    return ToolResult.text(f"answered {answer.action}")


def test_ending_a_session_fails_what_its_calls_asked_the_client() -> None:
    server = HttpServer(McpServer("demo", "1", [make_tool("ask", ask, schema={
        "type": "object"})]))

    async def run() -> dict[str, Any]:
        transport = httpx.ASGITransport(app=server.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            def headers(session: str | None) -> list[tuple[str, str]]:
                sent = [("content-type", "application/json"), ACCEPT]
                return sent + ([("mcp-session-id", session)] if session else [])

            init = await client.post("/mcp", headers=headers(None), content=json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}))
            session = init.headers["mcp-session-id"]
            answer: list[httpx.Response] = []

            async def call() -> None:
                answer.append(await client.post("/mcp", headers=headers(session), content=(
                    json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                "params": {"name": "ask", "arguments": {}}}))))

            with anyio.fail_after(10):  # (before: the ask waited its 300 s)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(call)
                    kept = server.sessions.table.get(session)
                    assert kept is not None
                    while not len(kept.pending):  # the call has asked
                        await anyio.sleep(0.01)
                    ended = await client.delete("/mcp", headers=headers(session))
                    assert ended.status_code == 204
        events = [line[5:] for line in answer[0].text.splitlines() if line.startswith("data:")]
        message: dict[str, Any] = json.loads(events[-1])
        return message

    result = anyio.run(run)["result"]
    assert result["isError"] is True
    assert "ended its session" in result["content"][0]["text"], result
