"""A path one slash away from a served one (``/mcp/``, ``/healthz/``) is 404 like any path
served nowhere. It was a 307 whose ``Location`` Starlette wrote from the request's ``Host``
header before the Host check (DNS rebinding), the Origin check or the token ran: any name
a client sent came back as a redirect target (``http://evil.example/mcp``). In process: the
real ASGI app."""

from __future__ import annotations

import anyio
import httpx
import pytest

from toolhost.mcp import McpServer
from toolhost.serve.http import HttpServer

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
