"""CORS for the browser pages named with ``toolhost serve --allow-origin``: without it a
browser sends no JSON POST across origins (its preflight ``OPTIONS`` must be answered) and
shows no answer to the page.

* ``OPTIONS`` on the MCP path from a named ``Origin`` is the preflight: 204 with the methods
  and request headers MCP uses, no token needed (a browser sends none on a preflight); from
  any other origin, or without one, 403. A loopback page is not named by default: it passes
  the Origin check (``toolhost.serve.http_gate``) but a browser does not let it call.
* Every answer to a request from a named ``Origin`` names that origin
  (``Access-Control-Allow-Origin``, ``Vary: Origin``) and exposes the headers a client reads
  (``Mcp-Session-Id``, ``WWW-Authenticate``). A request from an origin that is neither named
  nor loopback is refused by ``toolhost.serve.http_gate`` (403) before it is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from toolhost.excerpt import cut
from toolhost.mcp import wire
from toolhost.serve.base import error_response

__all__ = ["ALLOWED_HEADERS", "Cors"]

ALLOWED_METHODS = b"GET, POST, DELETE"
SERVED_METHODS = frozenset({b"GET", b"POST", b"DELETE"})  # case-sensitive (RFC 9110 9.1)
ALLOWED_HEADERS = (b"accept, authorization, content-type, last-event-id, mcp-method, mcp-name, "
                   b"mcp-protocol-version, mcp-session-id")
EXPOSED_HEADERS = b"mcp-session-id, mcp-protocol-version, www-authenticate, retry-after"
MAX_AGE = b"600"
# what a preflight may ask for (Access-Control-Request-Headers): header names, reflected
_ASKED = re.compile(rb"[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:[ \t]*,[ \t]*[A-Za-z0-9!#$%&'*+.^_`|~-]+)*")


def _header(scope: Scope, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


class Cors:
    """ASGI middleware around the server's app (see the module docstring)."""

    def __init__(self, app: ASGIApp, path: str, allowed: Callable[[str], bool],
                 host_refusal: Callable[[str | None], Response | None]) -> None:
        self._app = app
        self._path = path
        self._allowed = allowed  # whether a page of this Origin may call
        self._host_refusal = host_refusal  # DNS rebinding (the app checks it for the rest)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        raw = _header(scope, b"origin")
        origin = raw.decode("latin-1") if raw is not None else None
        if scope["method"] == "OPTIONS" and scope["path"] == "*":
            # the server as a whole (RFC 9110 section 9.3.7): what it allows, nothing more
            await send({"type": "http.response.start", "status": 204,
                        "headers": [(b"allow", ALLOWED_METHODS + b", OPTIONS")]})
            await send({"type": "http.response.body", "body": b""})
            return
        if scope["method"] == "OPTIONS" and scope["path"] == self._path:
            host = _header(scope, b"host")
            refusal = self._host_refusal(host.decode("latin-1") if host is not None else None)
            if refusal is not None:  # 421: not a name this server is reached by
                await refusal(scope, receive, send)
                return
            await self._preflight(origin, _header(scope, b"access-control-request-headers"),
                                  send, _header(scope, b"access-control-request-method"))
            return
        if origin is None or not self._allowed(origin):
            await self._app(scope, receive, send)
            return

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", [])
                           if k.lower() != b"vary"]
                headers += [(b"access-control-allow-origin", raw or b""),
                            (b"access-control-expose-headers", EXPOSED_HEADERS),
                            (b"vary", b"Origin")]
                message = {**message, "headers": headers}
            await send(message)

        await self._app(scope, receive, with_cors)

    async def _preflight(self, origin: str | None, asked: bytes | None, send: Send,
                         method: bytes | None = None) -> None:
        refused = None
        if origin is None or not self._allowed(origin):
            shown = "no Origin" if origin is None else f"origin {cut(origin, 100)!r}"
            refused = (f"Forbidden: {shown} may not call this server from a browser (name it "
                       "with toolhost serve --allow-origin)")
        elif method is not None and method.strip() not in SERVED_METHODS:
            # a method MCP does not use (PUT, TRACE, a lower-case post): refused plainly,
            # not left to the browser's reading of Access-Control-Allow-Methods
            refused = (f"Forbidden: a browser page may send {ALLOWED_METHODS.decode()} here, "
                       f"not {cut(method.decode('latin-1'), 40)!r}")
        if refused is not None or origin is None:
            body = wire.encode_answer(error_response(None, -32600, refused or "Forbidden"))
            await send({"type": "http.response.start", "status": 403, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()), (b"vary", b"Origin")]})
            await send({"type": "http.response.body", "body": body})
            return
        await send({"type": "http.response.start", "status": 204, "headers": [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-allow-methods", ALLOWED_METHODS),
            (b"access-control-allow-headers",
             asked.strip() if asked is not None and len(asked) <= 2000
             and _ASKED.fullmatch(asked.strip()) else ALLOWED_HEADERS),
            (b"access-control-max-age", MAX_AGE),
            (b"vary", b"Origin")]})
        await send({"type": "http.response.body", "body": b""})
