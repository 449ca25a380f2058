"""The HTTP routing headers of MCP 2026-07-28 and how they must agree with the body.

A modern request repeats its protocol version, method and (for name-bearing methods) the
tool, prompt or resource name in headers, so gateways can route without parsing JSON. A
server MUST reject a request whose headers disagree with its body (``HEADER_MISMATCH``;
the rule itself: ``toolhost.serve.route_headers``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.mcp.jsonrpc import HANDSHAKE_VERSIONS, MODERN_VERSIONS

__all__ = [
    "HEADER_MISMATCH",
    "PROTOCOL_VERSION_HEADER",
    "SESSION_HEADER",
    "accepted",
    "http_status_for",
    "is_json_content_type",
    "legacy_body_mismatch",
    "request_version",
    "unsupported_version_header",
]

PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
SESSION_HEADER = "mcp-session-id"
HEADER_MISMATCH = -32020
PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion"

# JSON-RPC error code -> HTTP status, for modern-era answers (spec: transports, errors).
_STATUS = {-32700: 400, -32600: 400, -32602: 400, HEADER_MISMATCH: 400, -32021: 400,
           -32022: 400, -32601: 404}


def request_version(message: Mapping[str, Any]) -> str | None:
    """The protocol version in ``params._meta`` (modern era), or None (legacy rules)."""
    params = message.get("params")
    meta = params.get("_meta") if isinstance(params, Mapping) else None
    if isinstance(meta, Mapping):
        version = meta.get(PROTOCOL_VERSION_META_KEY)
        return version if isinstance(version, str) else None
    return None


def unsupported_version_header(headers: Mapping[str, str]) -> str | None:
    """Why a request's ``MCP-Protocol-Version`` header cannot be served (a version neither
    era knows: the spec asks for 400), or None (a known version, or no header)."""
    sent = headers.get(PROTOCOL_VERSION_HEADER)
    if sent is None or sent in HANDSHAKE_VERSIONS or sent in MODERN_VERSIONS:
        return None
    return (f"Bad Request: unsupported MCP-Protocol-Version {_q(sent)} (this server speaks "
            f"{', '.join(HANDSHAKE_VERSIONS + MODERN_VERSIONS)})")


def legacy_body_mismatch(headers: Mapping[str, str]) -> str | None:
    """Why a body without a protocol version (the 2025 revisions) disagrees with its
    ``MCP-Protocol-Version`` header: one naming a stateless revision promises the version in
    ``params._meta``, as the 2026-07-28 revision asks."""
    sent = headers.get(PROTOCOL_VERSION_HEADER)
    if sent is not None and sent in MODERN_VERSIONS:
        return (f"Invalid params: header MCP-Protocol-Version {_q(sent)} names a revision "
                "whose requests carry their version in params._meta, and this one names none")
    return None


def _q(value: object) -> str:
    return cut(repr(value), 100)


def http_status_for(answer: Mapping[str, Any] | None) -> int:
    """The HTTP status a modern-era answer travels with (200 unless an error maps)."""
    if answer is None:
        return 202
    error = answer.get("error")
    if isinstance(error, Mapping):
        code = error.get("code")
        return _STATUS.get(code, 200) if isinstance(code, int) else 200
    return 200


def accepted(accept: str | None) -> tuple[bool, bool]:
    """Whether an ``Accept`` header admits (application/json, text/event-stream).

    No header admits both (curl and hand-written clients often send none); ``*/*`` and
    ``application/*`` / ``text/*`` count; a range with ``q=0`` is refused.
    """
    if accept is None or not accept.strip():
        return True, True
    json_ok = sse_ok = False
    for item in accept.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        if any(p.replace(" ", "").lower() in ("q=0", "q=0.0", "q=0.00", "q=0.000")
               for p in params):
            continue
        media = media.lower()
        json_ok = json_ok or media in ("application/json", "application/*", "*/*")
        sse_ok = sse_ok or media in ("text/event-stream", "text/*", "*/*")
    return json_ok, sse_ok


def is_json_content_type(content_type: str | None) -> bool:
    """A POST body's ``Content-Type`` is JSON (missing counts: the body decides)."""
    if content_type is None or not content_type.strip():
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/")
                                           and media.endswith("+json"))
