"""A session served without being kept (``--max-sessions`` full of sessions in use) is
forgotten once none of its requests is being answered, whatever ended the request. A
notification (``notifications/initialized``, which every client sends) or a request refused
before it was counted in left its session behind for good: a client pairing ``initialize``
with ``notifications/initialized`` grew the server without bound. In process: the real ASGI
app and core."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import anyio
import httpx
import pytest

from toolhost.limits import DEFAULT_LIMITS
from toolhost.mcp import McpServer
from toolhost.serve.http import HttpServer

from .test_route_headers import ACCEPT

INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}


@pytest.mark.parametrize(("message", "status"), [
    ({"jsonrpc": "2.0", "method": "notifications/initialized"}, 202),
    ({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}, 202),
    ({"jsonrpc": "2.0", "id": 5, "result": {}}, 409),  # an answer nobody waits for
    ({"jsonrpc": "2.0", "id": 5, "method": "ping"}, 503),  # refused: shutting down
])
def test_a_session_not_kept_is_forgotten_after_each_request(message: dict[str, Any],
                                                            status: int) -> None:
    server = HttpServer(McpServer("demo", "1", []),
                        limits=dataclasses.replace(DEFAULT_LIMITS, max_sessions=2))

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=server.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            async def post(body: dict[str, Any], session: str | None = None) -> httpx.Response:
                headers = [("content-type", "application/json"), ACCEPT]
                if session is not None:
                    headers.append(("mcp-session-id", session))
                return await client.post("/mcp", headers=headers,
                                         content=json.dumps(body).encode())
            ids = [(await post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                "params": INIT})).headers["mcp-session-id"] for _ in range(12)]
            if status == 503:
                server.refuse_new()
            return [(await post(message, session)).status_code for session in ids]
    assert anyio.run(run) == [status] * 12
    assert len(server.sessions.table) == 2
    assert server.sessions._unkept == {}
