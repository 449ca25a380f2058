"""What keeps HTTP ``serve`` bounded: the body read cap, the Host check, the open files.

* ``read_body`` reads a POST body with a cap and a deadline: 413 as soon as it is known to
  be too large (from ``Content-Length`` before a byte is read, or while streaming), 408 when
  the client is too slow; never buffers more than the cap.
* ``HostCheck`` refuses a ``Host`` the server was not meant to be reached by (DNS
  rebinding: on a loopback bind only loopback names are accepted).
* ``raise_fd_limit`` makes room for ``--max-connections`` connections: idle connections
  cannot take every file descriptor of the process (the connections themselves are bounded
  by ``toolhost.serve.http_protocol``).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response

from toolhost.excerpt import cut
from toolhost.limits import Limits
from toolhost.mcp import wire
from toolhost.serve.base import error_response
from toolhost.serve.budget import Reservation

__all__ = ["FD_HEADROOM", "LOOPBACK_NAMES", "HostCheck", "JsonAnswer", "is_loopback_bind",
           "raise_fd_limit", "read_body"]

log = logging.getLogger("toolhost.serve")

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_CLOSE = {"connection": "close"}
FD_HEADROOM = 256  # file descriptors beside the connections: config, tools, upstreams, logs
class JsonAnswer(JSONResponse):
    """A JSON-RPC answer as an HTTP response, encoded like every other answer on the wire
    (a client's lone surrogate echoed back stays escaped instead of failing)."""

    def render(self, content: Any) -> bytes:
        return wire.encode_answer(content)


def is_loopback_bind(host: str) -> bool:
    """Whether ``--host`` binds a loopback address only."""
    name = host.strip("[]").lower()
    return name in LOOPBACK_NAMES or name.startswith("127.")


def host_name(header: str) -> str:
    """The name in a ``Host`` header value: ``[::1]:8765`` -> ``::1``, ``a.b:80`` -> ``a.b``."""
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    name, colon, port = value.rpartition(":")
    return name if colon and port.isdigit() else value


class HostCheck:
    """Which ``Host`` headers are accepted.

    ``allowed`` names (or ``name:port``) come from ``--allow-host``; on a loopback bind the
    loopback names are always accepted and nothing else unless allowed; on another bind
    every Host is accepted unless some are named. ``*`` accepts every Host.
    """

    def __init__(self, bind: str, allowed: tuple[str, ...] = ()) -> None:
        self.any = "*" in allowed or (not allowed and not is_loopback_bind(bind))
        self.allowed = {a.strip().lower().strip("[]") for a in allowed}
        self.allowed |= {a.strip().lower() for a in allowed}
        if is_loopback_bind(bind):
            self.allowed |= LOOPBACK_NAMES

    def refusal(self, header: str | None) -> Response | None:
        """None if ``header`` is accepted, else the 421 answer."""
        if self.any:
            return None
        if header is not None and (header.strip().lower() in self.allowed
                                   or host_name(header) in self.allowed):
            return None
        shown = "no Host header" if header is None else f"Host {cut(header, 100)!r}"
        return JsonAnswer(error_response(
            None, -32600, f"Misdirected Request: {shown} is not served here (this server "
            "accepts " + ", ".join(sorted(self.allowed)) + "; add names with "
            "toolhost serve --allow-host)"), status_code=421)


async def read_body(request: Request, limits: Limits,
                    reservation: Reservation | None = None) -> bytes | Response:
    """The body, or the response refusing it (413 too large, 408 too slow, 400 bad length,
    503 when ``reservation``'s budget cannot hold the bytes that arrived: "server busy").

    Each chunk is added to ``reservation`` before it is kept; the caller releases it."""
    limit = limits.max_message_bytes
    length = request.headers.get("content-length")
    if length is not None:
        stripped = length.strip()
        if not stripped.isdigit() or len(stripped) > 19:
            return JsonAnswer(error_response(None, -32600, "Invalid Content-Length "
                                               f"{cut(length, 40)!r}"),
                                status_code=400, headers=_CLOSE)
        if int(stripped) > limit:
            return _too_large(int(stripped), limit)
    chunks: list[bytes] = []
    size = 0
    begun = anyio.current_time()
    # A client sends its body with its headers, or at once after "100 Continue": one that
    # announces a body and sends none is answered 408 within half the header deadline (5 s
    # by default), not at the whole body's; a body that has started has --body-timeout.
    first = min(limits.body_timeout, limits.header_timeout / 2)
    started = False
    with anyio.move_on_after(first) as scope:
        try:
            async for chunk in request.stream():
                if not started:  # it is coming: the whole body has --body-timeout
                    started = True
                    scope.deadline = begun + limits.body_timeout
                size += len(chunk)
                if size > limit:
                    return _too_large(size, limit, at_least=True)
                if reservation is not None and not reservation.add(len(chunk)):
                    return _busy(reservation)
                chunks.append(chunk)
        except ClientDisconnect:
            return Response(status_code=400, headers=_CLOSE)  # nobody is left to read it
    if scope.cancelled_caught:
        waited = limits.body_timeout if started else first
        log.info("closed a request whose body %s within %gs",
                 "did not arrive" if started else "did not start", waited)
        what = ("the body did not arrive" if started
                else "no byte of the body arrived (announced by its headers)")
        return JsonAnswer(error_response(
            None, -32600, f"Request Timeout: {what} within {waited:g}s (toolhost serve "
            "--body-timeout, --header-timeout)"), status_code=408, headers=_CLOSE)
    return b"".join(chunks)


def _busy(reservation: Reservation) -> Response:
    budget = reservation.budget
    log.warning("refused a request whose body was arriving: %s bytes of messages in flight",
                f"{budget.held:,}")
    return JsonAnswer(budget.refusal(None), status_code=503,
                      headers={**_CLOSE, "retry-after": "1"})


def _too_large(size: int, limit: int, *, at_least: bool = False) -> Response:
    log.warning("refused a body of %s%s bytes (the limit is %s)", "over " if at_least else "",
                f"{limit if at_least else size:,}", f"{limit:,}")
    said = f"over {limit:,}" if at_least else f"{size:,}"
    return JsonAnswer(error_response(
        None, -32600, f"Payload Too Large: the body is {said} bytes; the limit is {limit:,} "
        "(toolhost serve --max-message)"), status_code=413, headers=_CLOSE)


def raise_fd_limit(max_connections: int) -> int:
    """Make room for ``max_connections`` connections and ``FD_HEADROOM`` other files: raise
    the soft limit on open files (up to the hard limit) if it is lower. The connections that
    fit: ``max_connections``, or fewer (with a warning) when even the hard limit is too low,
    so that connections are refused before the process runs out of files."""
    try:
        import resource
    except ImportError:  # not on this platform: nothing to raise
        return max_connections
    needed = max_connections + FD_HEADROOM
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return max_connections
    target = needed if hard == resource.RLIM_INFINITY else min(hard, needed)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    except (OSError, ValueError):
        target = soft
    if target >= needed:
        return max_connections
    fits = max(1, target - FD_HEADROOM)
    log.warning("--max-connections %d needs about %d open files, and this process may open "
                "%d (ulimit -n): serving at most %d connections", max_connections, needed,
                target, fits)
    return fits
