"""What a 2026-07-28 request meets over HTTP that a 2025 one does not: the methods that
revision removed are HTTP 404 with -32601 (never run), and custom ``Mcp-Param-*`` headers
(SEP-2243, a tool's ``x-mcp-header`` properties) must agree with the call's arguments (HTTP
400, -32020), so a gateway routing on them cannot be told one value while the tool runs
another. In process: the real ASGI app and the real core with real tools."""

from __future__ import annotations

import base64
import json
from typing import Any

import anyio
import httpx
import pytest

from toolhost.mcp import McpServer
from toolhost.serve.http import HttpServer

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}


def exchange(core: Any, posts: list[tuple[dict[str, Any], dict[str, str]]]
             ) -> list[tuple[int, Any]]:
    """POST each (body, headers) to one server: the status and the decoded answer of each."""
    app = HttpServer(core).app

    async def run() -> list[tuple[int, Any]]:
        out = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            for body, headers in posts:
                answer = await client.post("/mcp", content=json.dumps(body).encode(), headers={
                    "content-type": "application/json",
                    "accept": "application/json, text/event-stream", **headers})
                out.append((answer.status_code, answer.json() if answer.content else None))
        return out

    return anyio.run(run)


REMOVED = ["initialize", "ping", "logging/setLevel", "resources/subscribe",
           "resources/unsubscribe"]


def test_removed_methods_are_404_method_not_found_in_the_stateless_revision() -> None:
    posts = [({"jsonrpc": "2.0", "id": i, "method": method,
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "level": "info",
                          "uri": "x://y", "_meta": MODERN}},
              {"mcp-method": method, "mcp-protocol-version": "2026-07-28"})
             for i, method in enumerate(REMOVED)]
    for i, (status, answer) in enumerate(exchange(McpServer("s", "1", []), posts)):
        assert status == 404, REMOVED[i]
        assert answer["id"] == i and answer["error"]["code"] == -32601, answer
    # a 2025 client still initializes and pings (a session, 200)
    legacy = exchange(McpServer("s", "1", []), [
        ({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                     "clientInfo": {"name": "c", "version": "1"}}}, {}),
        ({"jsonrpc": "2.0", "id": 2, "method": "ping"}, {})])
    assert [status for status, _ in legacy] == [200, 200]
    assert legacy[0][1]["result"]["protocolVersion"] == "2025-11-25"
