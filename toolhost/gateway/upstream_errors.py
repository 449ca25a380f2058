"""What can go wrong with a request to an upstream MCP server, and how the mcp client's
exceptions are read: an error the upstream answered (the connection is sound), an invalid
answer, or a broken connection (dropped: the next use starts it again)."""

from __future__ import annotations

import re

from toolhost.excerpt import cut
from toolhost.gateway.liblogs import describe_invalid

__all__ = ["SSE_ENDED", "Broken", "CallCancelled", "SessionLost", "TimedOut", "UpstreamError",
           "describe", "is_invalid", "is_protocol_error", "unread_answer"]


class UpstreamError(Exception):
    """The upstream could not be reached, broke the connection, or answered an error:
    ``code`` is then its JSON-RPC error code (None otherwise)."""

    def __init__(self, message: str, code: object = None) -> None:
        super().__init__(message)
        # what the upstream sent is only trusted as a code when it is one
        self.code = code if type(code) is int else None


class CallCancelled(UpstreamError):
    """The call was cancelled (``CallStop``): the upstream was told, no answer will come."""


class Broken(UpstreamError):
    """The connection broke (not an error the upstream answered)."""


class SessionLost(Broken):
    """An HTTP upstream answered 404 to the session's id: the request did not run."""


class TimedOut(UpstreamError):
    """No answer in time: the request is abandoned, the connection kept."""



SSE_ENDED = "SSE stream ended without a response"
# the mcp client's words for a request a closure ended, and the start of its words for one
# whose answer's event stream failed or ended ("SSE stream ended without a response", ...)
_CLOSED = "Connection closed"
_SSE = "SSE stream "


def is_invalid(exc: BaseException) -> bool:
    from pydantic import ValidationError

    return isinstance(exc, ValidationError)


def is_protocol_error(exc: BaseException) -> bool:
    """An error the upstream answered (the connection is fine), not a closed connection.
    The mcp client says a closed one (or an answer's event stream that broke or ended) with
    the code -32000, which JSON-RPC also gives servers for errors of their own (and many
    use): only its own words, with no data, are a closure (an upstream that answers exactly
    those is started again, as it asked)."""
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    if not isinstance(exc, MCPError):
        return False
    return not (exc.code == CONNECTION_CLOSED and exc.data is None
                and (exc.message == _CLOSED or exc.message.startswith(_SSE)))


def describe(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)  # an ExceptionGroup (3.11+ builtin)
    if isinstance(inner, (list, tuple)) and inner:
        return "; ".join(describe(e) for e in inner)
    if is_invalid(exc):  # pydantic's report is many lines, with a URL each: one line
        return f"an invalid answer ({describe_invalid(exc)})"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


# the mcp client's words for an HTTP answer (a POST's JSON body) it could not read, followed
# by pydantic's report of many lines
_UNREAD = "Failed to parse JSON response: "
_COUNT = re.compile(r"(\d+) validation errors? for ")


def unread_answer(exc: BaseException) -> str | None:
    """What was wrong with an HTTP upstream's answer the mcp client could not read, in one
    line as ``describe_invalid`` says it of a stdio one (``id.int: Input should be a valid
    integer and 8 more``, ``not JSON``); None for any other exception."""
    from mcp.shared.exceptions import MCPError
    from mcp.types import PARSE_ERROR

    if not isinstance(exc, MCPError) or exc.code != PARSE_ERROR \
            or not exc.message.startswith(_UNREAD):
        return None
    text = exc.message[len(_UNREAD):]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if "json_invalid" in text:
        return "not JSON"
    counted = _COUNT.match(lines[0]) if lines else None
    if counted is None or len(lines) < 3:
        return cut(" ".join(text.split()), 200)
    where = lines[1].split(".", 1)[1] if "." in lines[1] else lines[1]  # (the union member)
    more = int(counted.group(1)) - 1
    return cut(f"{where}: {lines[2].split(' [type=', 1)[0]}"
               + (f" and {more} more" if more else ""), 200)
