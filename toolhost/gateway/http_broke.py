"""Why a request to an HTTP upstream failed below HTTP, in words a person acts on.

When a Streamable HTTP upstream goes away (its process killed, its host down, a proxy
cutting the connection), the ``mcp`` client's request task fails with an ``httpx`` transport
error, its session's streams close, and every request under way ends with only
``MCPError: Connection closed``; a start that cannot connect says ``ConnectError: All
connection attempts failed``. Neither says which upstream, where, or what happened. The
transport toolhost gives the HTTP client (``WatchedTransport``) notes the failure of a request
on the connection's ``Wire`` before the session sees the end, so the failed call, the start's
error and the warning say it: ``upstream server 'web' (http://127.0.0.1:8080) refused the
connection: nothing listens there (is the server running?)``.

Only the address's origin (scheme, host, port) is said: a URL's path or query may hold a
token.
"""

from __future__ import annotations

import errno
import logging
import socket
import ssl
from typing import Protocol
from urllib.parse import urlsplit

import httpx2

from toolhost.excerpt import cut


class Wire(Protocol):
    """What a failure is noted on: the connection of ``toolhost.gateway.transport``."""

    server: str
    origin: str
    ready: bool
    broke: str
    failure: str

__all__ = ["WatchedTransport", "broke_said", "note_broken", "origin_of"]

log = logging.getLogger("toolhost.gateway")


def origin_of(url: str) -> str:
    """``scheme://host:port`` of ``url`` (no userinfo, path or query: they may hold a
    secret)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "its URL"
    host = f"[{host}]" if ":" in host else host
    return f"{parts.scheme}://{host}{port}" if parts.scheme and host else "its URL"


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it was raised from (bounded; a cycle ends it)."""
    found: list[BaseException] = []
    at: BaseException | None = exc
    while at is not None and len(found) < 8 and all(at is not e for e in found):
        found.append(at)
        at = at.__cause__ or at.__context__
    return found


def broke_said(exc: BaseException) -> str:
    """What a transport error of ``httpx`` (``exc``) means for the upstream, as a clause
    (``refused the connection: nothing listens there (is the server running?)``); "" when
    ``exc`` is none."""
    if not isinstance(exc, httpx2.TransportError):
        return ""
    causes = _causes(exc)
    codes = {getattr(c, "errno", None) for c in causes}
    if isinstance(exc, httpx2.ConnectTimeout):
        return "did not accept the connection in time (is the host up and reachable?)"
    if isinstance(exc, httpx2.TimeoutException):
        return "stopped answering in the middle of a request (it timed out)"
    if isinstance(exc, httpx2.ConnectError):
        if errno.ECONNREFUSED in codes:
            return "refused the connection: nothing listens there (is the server running?)"
        if any(isinstance(c, socket.gaierror) for c in causes):
            return "cannot be found: its host name does not resolve"
        if any(isinstance(c, ssl.SSLError) for c in causes):
            bad = next(c for c in causes if isinstance(c, ssl.SSLError))
            return f"failed the TLS handshake ({cut(str(bad), 160)})"
        return f"cannot be connected to ({cut(_last_words(causes), 160)})"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return ("closed the connection without a complete answer (it may have crashed or "
                "restarted)")
    if isinstance(exc, (httpx2.ReadError, httpx2.WriteError)) or \
            codes & {errno.ECONNRESET, errno.EPIPE}:
        return ("broke the connection in the middle of a request (it may have crashed or "
                "restarted)")
    return f"failed the request ({cut(_last_words(causes), 160)})"


def _last_words(causes: list[BaseException]) -> str:
    """The most specific words of the chain: its innermost error with a message."""
    for cause in reversed(causes):
        if str(cause):
            return f"{type(cause).__name__}: {cause}"
    return type(causes[0]).__name__


def note_broken(wire: Wire, exc: BaseException) -> None:
    """Note ``exc``, the failure of a request (or of its answer's body) on ``wire``: the
    connection ends with it, and the first one noted is what it says (``wire.broke``: the
    clause; ``wire.failure``: the sentence the failed requests say)."""
    said = broke_said(exc)
    if not said or wire.failure:
        return
    wire.broke = f"{wire.origin} {said}"
    wire.failure = (f"upstream server '{wire.server}' ({wire.origin}) {said}; the next use "
                    "tries again")
    if wire.ready:  # (a start that fails says it in its error)
        log.warning("%s", wire.failure)


class WatchedTransport(httpx2.AsyncBaseTransport):
    """httpx's own transport, with a request that fails below HTTP noted on ``wire``."""

    def __init__(self, wire: Wire) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.wire = wire

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return await self.inner.handle_async_request(request)
        except httpx2.TransportError as exc:
            if request.method == "POST":  # (a GET stream that drops is reopened by the client)
                note_broken(self.wire, exc)
            raise

    async def aclose(self) -> None:
        await self.inner.aclose()
