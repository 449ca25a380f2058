"""A path one slash away from a served one (``/mcp/``, ``/healthz/``) is 404 like any path
served nowhere. It was a 307 whose ``Location`` Starlette wrote from the request's ``Host``
header before the Host check (DNS rebinding), the Origin check or the token ran: any name
a client sent came back as a redirect target (``http://evil.example/mcp``). In process: the
real ASGI app."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import httpx
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.results import ToolResult
from toolhost.serve.http import HttpServer

from ..mcp.mcp_testtools import make_tool
from .test_route_headers import ACCEPT


def ask(method: str, path: str, host: str) -> httpx.Response:
    app = HttpServer(McpServer("demo", "1", []), token="t0ken").app

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.request(method, path, content=b"{}", headers=[
                ("host", host), ("content-type", "application/json"), ACCEPT])
    return anyio.run(run)


@pytest.mark.parametrize("host", ["127.0.0.1", "evil.example"])
@pytest.mark.parametrize(("method", "path"), [
    ("POST", "/mcp/"), ("GET", "/mcp/"), ("DELETE", "/mcp/"), ("GET", "/healthz/"),
    ("GET", "/readyz/"), ("GET", "/.well-known/oauth-protected-resource/")])
def test_a_path_with_a_slash_more_is_not_redirected(method: str, path: str,
                                                    host: str) -> None:
    answer = ask(method, path, host)
    assert answer.status_code in (404, 421), (answer.status_code, answer.headers)
    assert "location" not in answer.headers
    assert "evil.example" not in answer.text.replace(f"Host '{host}'", "")


def test_the_path_itself_is_still_served() -> None:
    assert ask("GET", "/healthz", "127.0.0.1").status_code == 200
    assert ask("POST", "/mcp", "127.0.0.1").status_code == 401  # asked for its token


def test_a_head_of_the_endpoint_runs_nothing() -> None:
    """``HEAD /mcp`` is 405: Starlette serves HEAD wherever GET is, and a HEAD carrying a
    body was answered as a POST (a tool run by a method that must change nothing)."""
    ran: list[str] = []

    async def tool(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        ran.append("ran")
        return ToolResult.text("ran")

    app = HttpServer(McpServer("demo", "1", [make_tool("t", tool)])).app
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "t", "arguments": {"name": "x"}}}).encode()

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.request("HEAD", "/mcp", content=body, headers=[
                ("content-type", "application/json"), ACCEPT])
    answer = anyio.run(run)
    assert answer.status_code == 405 and answer.headers["allow"] == "GET, POST, DELETE"
    assert ran == []


@pytest.mark.parametrize(("raw", "path"), [(b"%2Fmcp", "/mcp"), (b"%2fhealthz", "/healthz"),
                                           (b"%2F%2Fmcp", "//mcp")])
def test_a_target_that_is_not_a_path_is_refused(raw: bytes, path: str) -> None:
    """A request target neither origin- nor absolute-form (``POST %2Fmcp``: uvicorn decodes
    it to ``/mcp``) is 400: it was served, though a proxy matching paths by their text
    takes it for another path."""
    app = HttpServer(McpServer("demo", "1", [])).app
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    sent: list[dict[str, Any]] = []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST" if path.endswith("mcp") else "GET", "scheme": "http",
             "path": path, "raw_path": raw, "query_string": b"", "root_path": "",
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80),
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                         (b"content-length", str(len(body)).encode())]}

    bodies = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        return bodies.pop() if bodies else {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    anyio.run(app, scope, receive, send)
    assert sent[0]["status"] == 400, sent
    assert "does not start with '/'" in json.loads(sent[1]["body"])["error"]["message"]
