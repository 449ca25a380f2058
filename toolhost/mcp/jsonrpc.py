"""JSON-RPC 2.0 and MCP constants, and the small builders every transport shares."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = [
    "CANCELLED_MESSAGE",
    "CLIENT_CAPABILITIES_META_KEY",
    "CLIENT_INFO_META_KEY",
    "HANDSHAKE_VERSIONS",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "LATEST_HANDSHAKE_VERSION",
    "LOG_LEVELS",
    "LOG_LEVEL_META_KEY",
    "METHOD_NOT_FOUND",
    "MISSING_CLIENT_CAPABILITY",
    "MODERN_VERSIONS",
    "PARSE_ERROR",
    "PROTOCOL_VERSION_META_KEY",
    "REMOVED_IN_MODERN",
    "REQUEST_CANCELLED",
    "SERVER_BUSY",
    "SERVER_INFO_META_KEY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "RpcError",
    "cancelled_response",
    "error_response",
    "is_valid_id",
    "modern_meta_problem",
    "result_response",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
# Not in JSON-RPC; what MCP SDKs send for a request the peer cancelled.
SERVER_BUSY = -32000  # implementation-defined: too much in flight (toolhost.serve.budget)
REQUEST_CANCELLED = -32800
CANCELLED_MESSAGE = "Request cancelled"
# MCP 2026-07-28: answering needs a capability the request's clientCapabilities lacks.
MISSING_CLIENT_CAPABILITY = -32021
# MCP 2026-07-28: the request's declared protocol version is not served here.
UNSUPPORTED_PROTOCOL_VERSION = -32022

# Revisions reachable through the initialize handshake, oldest to newest.
HANDSHAKE_VERSIONS: tuple[str, ...] = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
LATEST_HANDSHAKE_VERSION = HANDSHAKE_VERSIONS[-1]
# Stateless revisions: every request carries its version in params._meta.
MODERN_VERSIONS: tuple[str, ...] = ("2026-07-28",)
# Methods the stateless revision removed (lifecycle, ping, logging level, the subscribe
# pair: subscriptions/listen replaces them): a request naming its version there and one of
# these is -32601, as for a method nobody serves (HTTP 404).
REMOVED_IN_MODERN = frozenset({"initialize", "ping", "logging/setLevel",
                               "resources/subscribe", "resources/unsubscribe"})

PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"
CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo"
CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities"
SERVER_INFO_META_KEY = "io.modelcontextprotocol/serverInfo"
LOG_LEVEL_META_KEY = "io.modelcontextprotocol/logLevel"  # a 2026-07-28 request's opt-in
# MCP's syslog levels, lowest first (LoggingLevel)
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


def modern_meta_problem(meta: Any) -> str | None:
    """Why a request naming a stateless revision in ``params._meta`` is malformed there
    (that revision requires the client's capabilities, an object, on every request, and a
    ``logLevel``, when given, is a LoggingLevel; the answer is -32602, HTTP 400), or None."""
    capabilities = meta.get(CLIENT_CAPABILITIES_META_KEY, None)
    if isinstance(capabilities, Mapping):
        if LOG_LEVEL_META_KEY not in meta:  # the request hears no log lines
            return None
        level = meta[LOG_LEVEL_META_KEY]
        if isinstance(level, str) and level in LOG_LEVELS:
            return None
        # a level no log line has would be silence the client never asked for
        shown = repr(level)[:60] if isinstance(level, str) else type(level).__name__
        return (f"Invalid params: params._meta['{LOG_LEVEL_META_KEY}'] is one of "
                f"{', '.join(LOG_LEVELS)} (not {shown})")
    if capabilities is None and CLIENT_CAPABILITIES_META_KEY not in meta:
        return (f"Invalid params: params._meta has no '{CLIENT_CAPABILITIES_META_KEY}' (a "
                "request of this revision declares the client's capabilities, {} for none)")
    return (f"Invalid params: params._meta['{CLIENT_CAPABILITIES_META_KEY}'] must be an "
            f"object, not {type(capabilities).__name__}")


class RpcError(Exception):
    """Raised by a method's handler: the request is answered with this JSON-RPC error."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.data = code, message, data


def is_valid_id(value: object) -> bool:
    """A JSON-RPC request id: a string or a finite number (never a bool, never null).

    JSON-RPC 2.0 allows any Number (fractions discouraged) and MCP's ``RequestId`` is
    ``string | number``, so ``1.5`` is answered under ``1.5``; an object, a list, a bool or
    null is an Invalid Request answered with id null.
    """
    if isinstance(value, str):
        return True
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


def result_response(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def error_response(request_id: Any, code: int, message: str,
                   data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def cancelled_response(request_id: Any) -> dict[str, Any]:
    """The answer to a request a ``notifications/cancelled`` stopped (-32800)."""
    return error_response(request_id, REQUEST_CANCELLED, CANCELLED_MESSAGE)
