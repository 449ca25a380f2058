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


def test_an_initialize_inside_a_session_starts_no_second_one() -> None:
    """An ``initialize`` carrying the ``Mcp-Session-Id`` of a live session is 400 naming the
    header (it used to start a second session beside the first); an id that names no
    session (ended, forged) is 404, as for any request, and nothing is kept for it."""
    server = HttpServer(McpServer("demo", "1", []))

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=server.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            async def post(method: str, params: dict[str, Any], session: str | None = None
                           ) -> httpx.Response:
                headers = [("content-type", "application/json"), ACCEPT]
                if session is not None:
                    headers.append(("mcp-session-id", session))
                return await client.post("/mcp", headers=headers, content=json.dumps({
                    "jsonrpc": "2.0", "id": 7, "method": method, "params": params}).encode())

            first = (await post("initialize", INIT)).headers["mcp-session-id"]
            ended = (await post("initialize", INIT)).headers["mcp-session-id"]
            assert (await client.delete("/mcp", headers={"mcp-session-id": ended})
                    ).status_code == 204
            forged = first[:-1] + ("B" if first.endswith("A") else "A")
            return [await post("initialize", INIT, first), await post("initialize", INIT, ended),
                    await post("initialize", INIT, forged),
                    await post("ping", {}, first)]
    again, after_delete, forged, ping = anyio.run(run)
    assert again.status_code == 400, again.text
    error = again.json()["error"]
    assert error["code"] == -32600 and "Mcp-Session-Id" in error["message"]
    assert "initialized already" in error["message"] and again.json()["id"] == 7
    assert "mcp-session-id" not in again.headers
    for unknown in (after_delete, forged):
        assert unknown.status_code == 404 and "unknown session" in unknown.text
        assert "mcp-session-id" not in unknown.headers
    assert ping.status_code == 200 and ping.json()["result"] == {}  # the first one lives on
    assert len(server.sessions.table) == 1
