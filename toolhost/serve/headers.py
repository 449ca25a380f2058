"""The HTTP routing headers of MCP 2026-07-28 and how they must agree with the body.

A modern request repeats its protocol version, method and (for name-bearing methods) the
tool, prompt or resource name in headers, so gateways can route without parsing JSON. A
server MUST reject a request whose headers disagree with its body (``HEADER_MISMATCH``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "HEADER_MISMATCH",
    "METHOD_HEADER",
    "NAME_HEADER",
    "PROTOCOL_VERSION_HEADER",
    "SESSION_HEADER",
    "decode_header_value",
    "header_mismatch",
    "http_status_for",
    "request_version",
]

PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
METHOD_HEADER = "mcp-method"
NAME_HEADER = "mcp-name"
SESSION_HEADER = "mcp-session-id"
HEADER_MISMATCH = -32020
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"

# method -> the params key its Mcp-Name header mirrors
NAME_BEARING = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

# JSON-RPC error code -> HTTP status, for modern-era answers (spec: transports, errors).
_STATUS = {-32700: 400, -32600: 400, -32602: 400, HEADER_MISMATCH: 400, -32021: 400,
           -32022: 400, -32601: 404}

_B64 = re.compile(r"^=\?base64\?(?P<payload>.*)\?=$")


def request_version(message: Mapping[str, Any]) -> str | None:
    """The protocol version in ``params._meta`` (modern era), or None (legacy rules)."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    if isinstance(meta, Mapping):
        version = meta.get(PROTOCOL_VERSION_META_KEY)
        return version if isinstance(version, str) else None
    return None


def decode_header_value(value: str) -> str | None:
    """Undo the ``=?base64?...?=`` wrapping clients use for values unsafe in a header."""
    match = _B64.fullmatch(value)
    if match is None:
        return value
    try:
        return base64.b64decode(match.group("payload"), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None


def header_mismatch(message: Mapping[str, Any], headers: Mapping[str, str]) -> str | None:
    """Why the routing headers disagree with a modern request's body, or None if they agree."""
    version = request_version(message)
    sent_version = headers.get(PROTOCOL_VERSION_HEADER)
    if sent_version is not None and sent_version != version:
        return (f"header MCP-Protocol-Version {sent_version!r} does not match "
                f"params._meta protocol version {version!r}")
    method = message.get("method")
    sent_method = headers.get(METHOD_HEADER)
    if sent_method is not None and sent_method != method:
        return f"header Mcp-Method {sent_method!r} does not match the body's method {method!r}"
    sent_name = headers.get(NAME_HEADER)
    key = NAME_BEARING.get(str(method))
    if sent_name is not None and key is not None:
        params = message.get("params")
        body_name = params.get(key) if isinstance(params, Mapping) else None
        if decode_header_value(sent_name) != body_name:
            return f"header Mcp-Name {sent_name!r} does not match params.{key} {body_name!r}"
    return None


def http_status_for(answer: Mapping[str, Any] | None) -> int:
    """The HTTP status a modern-era answer travels with (200 unless an error maps)."""
    if answer is None:
        return 202
    error = answer.get("error")
    if isinstance(error, Mapping):
        return _STATUS.get(int(error.get("code", 0)), 200)
    return 200
