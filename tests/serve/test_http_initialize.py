"""An ``initialize`` the core refuses (no protocolVersion, capabilities that are no object)
starts no session: its answer carried an ``Mcp-Session-Id`` all the same, a session the
client could go on using without the handshake ever having succeeded. In process: the real
ASGI app and the real core."""

from __future__ import annotations

import json
from typing import Any

import anyio
import httpx
import pytest

from toolhost.mcp import McpServer
from toolhost.serve.http import HttpServer

from .test_route_headers import ACCEPT

INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}


def initialize(params: dict[str, Any]) -> httpx.Response:
    app = HttpServer(McpServer("demo", "1", [])).app

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.post("/mcp", content=json.dumps({
                "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}).encode(),
                headers=[("content-type", "application/json"), ACCEPT])
    return anyio.run(run)


@pytest.mark.parametrize("params", [
    {k: v for k, v in INIT.items() if k != "protocolVersion"},
    {**INIT, "protocolVersion": 2025},
    {**INIT, "capabilities": []},
    {**INIT, "clientInfo": "t"},
])
def test_a_refused_initialize_starts_no_session(params: dict[str, Any]) -> None:
    answer = initialize(params)
    assert answer.json()["error"]["code"] == -32602, answer.text
    assert "mcp-session-id" not in answer.headers


def test_an_initialize_answered_starts_one() -> None:
    answer = initialize(INIT)
    assert answer.json()["result"]["protocolVersion"] == "2025-06-18"
    assert answer.headers["mcp-session-id"]
