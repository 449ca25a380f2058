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
    "foreign_charset",
    "http_status_for",
    "is_json_content_type",
    "legacy_body_mismatch",
    "repeated_header",
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
    ``application/*`` / ``text/*`` count. As RFC 9110 section 12.5.1 says, the most specific
    range naming a type decides its quality, and ``q=0`` refuses it: ``application/json;q=0,
    */*`` admits the stream only.
    """
    if accept is None or not accept.strip():
        return True, True
    # the quality each type gets from its most specific range: (specificity, q)
    json_q = sse_q = (-1, 0.0)
    for item in accept.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        media = media.lower()
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 1.0
                if not 0 <= q <= 1:  # not a quality (nan too): ignored, as before
                    q = 1.0
        json_rank = _RANKS_JSON.get(media, -1)
        if json_rank > json_q[0]:
            json_q = (json_rank, q)
        sse_rank = _RANKS_SSE.get(media, -1)
        if sse_rank > sse_q[0]:
            sse_q = (sse_rank, q)
    return json_q[1] > 0, sse_q[1] > 0


_RANKS_JSON = {"*/*": 0, "application/*": 1, "application/json": 2}
_RANKS_SSE = {"*/*": 0, "text/*": 1, "text/event-stream": 2}


def is_json_content_type(content_type: str | None) -> bool:
    """A POST body's ``Content-Type`` is JSON (missing counts: the body decides)."""
    if content_type is None or not content_type.strip():
        return True
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (media.startswith("application/")
                                           and media.endswith("+json"))


_UTF8_NAMES = ("utf-8", "utf8", "us-ascii", "ascii")


def foreign_charset(content_type: str | None) -> str | None:
    """The ``charset`` a JSON ``Content-Type`` names when it is not UTF-8 (or its subset
    US-ASCII), else None: JSON between systems is UTF-8 (RFC 8259 section 8.1), and a body
    in UTF-16 or Latin-1 read as UTF-8 would be a parse error naming a byte, or worse, text
    read other than it was meant."""
    if content_type is None or ";" not in content_type:
        return None
    named = [value.strip() for name, _, value in (param.partition("=") for param in
                                                   content_type.split(";")[1:])
             if name.strip().lower() == "charset"]
    if len(named) > 1:  # which one counts is a guess (a proxy may read the other): refused
        return "; ".join(named)
    if named and named[0].strip('"').strip().lower() not in _UTF8_NAMES:
        return named[0]
    return None


# Headers of which a request has one: with two, which counts would be a guess (a proxy in
# front may route or check by the other), so the request is refused, as two Authorization
# headers are (toolhost.serve.http_gate). Two Mcp-Method or Mcp-Name headers are refused by
# the routing rule, with its own code (toolhost.serve.route_headers).
_SINGLE = frozenset({b"origin", b"content-type", b"mcp-protocol-version",
                     b"mcp-session-id"})


def repeated_header(raw: list[tuple[bytes, bytes]]) -> str | None:
    """The name of a header that must come once and comes more often, or None."""
    seen: set[bytes] = set()
    for name, _ in raw:
        if name in _SINGLE:
            if name in seen:
                return name.decode()
            seen.add(name)
    return None
