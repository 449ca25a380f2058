"""What a transport needs from the MCP core: one async ``handle`` per JSON-RPC message."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Hashable, Mapping
from contextvars import ContextVar
from typing import Any, Protocol

__all__ = ["Handler", "Notify", "error_response", "is_notification", "is_request",
           "is_response", "stream_dropped"]

# Sends one JSON-RPC notification (a whole message dict) to the peer of the current request.
Notify = Callable[[dict[str, Any]], Awaitable[None]]

# Set by a transport around a request whose stream it can end for good: the core calls it
# when it drops that stream (its client fell behind); HTTP closes the connection at once.
stream_dropped: ContextVar[Callable[[], None] | None] = ContextVar("stream_dropped",
                                                                   default=None)


class Handler(Protocol):
    """The transport-free MCP core: answer one message; ``None`` for notifications."""

    async def handle(self, message: Mapping[str, Any], *, notify: Notify | None = None,
                     peer: Hashable = None) -> dict[str, Any] | None:
        """``peer`` names the client (an HTTP session id): what a client sets for itself
        (subscriptions, its log level) is kept per peer."""


def is_request(message: Mapping[str, Any]) -> bool:
    return "method" in message and "id" in message


def is_notification(message: Mapping[str, Any]) -> bool:
    return "method" in message and "id" not in message


def is_response(message: Mapping[str, Any]) -> bool:
    return "method" not in message and ("result" in message or "error" in message)


def error_response(request_id: Any, code: int, message: str,
                   data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def cancelled_id(message: Mapping[str, Any]) -> Any:
    """The ``requestId`` a ``notifications/cancelled`` names (None if malformed)."""
    params = message.get("params")
    if isinstance(params, Mapping):
        return params.get("requestId")
    return None


Send = Callable[[dict[str, Any]], Awaitable[None]]
