"""The runtime limits every wire entry point enforces, as one frozen value.

``toolhost serve`` (stdio and HTTP), the MCP core and the Claude CLI control session read
hostile bytes; each limit below turns an input that would cost unbounded memory, time or
stack into one error answer for that request, and the session goes on. The defaults are
generous enough that no honest client meets them; ``toolhost serve --max-body ...`` and
friends override them (docs/serve.md, "Limits").
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_LIMITS", "MAX_SIZE", "Limits", "parse_size"]

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Bounds on what one peer may send.

    ``max_message_bytes``: one JSON-RPC message (a stdio or control-protocol line, an HTTP
    body). Over it: HTTP 413; over stdio and the control protocol an error answer for that
    request (id null), and the next line is read as usual.

    ``max_depth``: JSON nesting (arrays and objects) of one message. Deeper: an Invalid
    Request answer, decided by a linear scan before the message is parsed, so nothing
    downstream (validation, serialisation, a tool) ever recurses that deep.

    ``max_values``: containers plus array items and object members in one message,
    counted by the same scan. Over it: an Invalid Request answer. It bounds the memory one
    message can take once parsed (a 32 MB line of ``{},`` is a million dicts per 8 MB).

    ``max_argument_bytes``: the ``arguments`` of one ``tools/call`` as compact JSON. Over
    it: an Invalid params answer naming the tool.

    ``max_connections``: concurrent HTTP connections (more get 503 until some close).

    ``max_in_flight``: requests being answered at once for one client (a stdio connection,
    an HTTP session of the 2025 revisions). More: each is answered at once with a "server
    busy" error (-32000) naming the limit, and the calls already accepted go on.

    ``max_in_flight_bytes``: the message bytes those requests hold while they are answered
    (over stdio per connection; over HTTP for the whole replica, since sessions cost a
    client nothing). More: the same "server busy" answer. A single message is always
    taken when nothing else is held, so a message under ``max_message_bytes`` always fits.

    ``header_timeout`` / ``body_timeout``: seconds an HTTP client has to send a request's
    headers, then its whole body. Later: the connection is closed (headers) or answered
    408 (body), so half-sent requests never pile up.

    ``write_timeout``: seconds an HTTP client may take none of one write of an answer or a
    stream (64 KiB at most) before its connection is closed and its call cancelled: a
    client that stopped reading never holds a call, a thread or a stream past it.

    ``max_sessions`` / ``session_idle``: HTTP sessions of the 2025 revisions one replica
    keeps. Past the bound, a new session takes the place of the least recently used one idle
    longer than ``session_idle`` seconds (no request, no stream, no call running); when none
    is, the new session is served without being kept (its calls answered; no settings, no
    client capabilities, its ``GET`` stream refused with 503) until a request of it finds
    room; every kept session keeps its state (docs/serve.md, "Limits").
    """

    max_message_bytes: int = 32 * MIB
    max_depth: int = 256
    max_values: int = 1_000_000
    max_argument_bytes: int = 16 * MIB
    max_connections: int = 1000
    max_in_flight: int = 1000
    max_in_flight_bytes: int = 64 * MIB
    header_timeout: float = 10.0
    body_timeout: float = 20.0
    write_timeout: float = 10.0
    max_sessions: int = 10_000
    session_idle: float = 600.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    0 < value < float("inf")):
                raise ValueError(f"limit {field.name} must be a positive finite number, "
                                 f"got {value!r}")

    def replace(self, **changes: int | float | None) -> Limits:
        """A copy with the given limits changed (``None`` keeps the current value)."""
        kept: dict[str, Any] = {k: v for k, v in changes.items() if v is not None}
        return dataclasses.replace(self, **kept)


DEFAULT_LIMITS = Limits()

_SIZE = re.compile(r"^\s*(\d+)(?:\.(\d+))?\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": MIB, "g": 1024 * MIB, "t": 1024 * 1024 * MIB}
MAX_SIZE = 1024 * 1024 * MIB  # 1 TiB: more than any one message can honestly need


def parse_size(text: str) -> int:
    """``"32MiB"``, ``"512k"``, ``"1TiB"``, ``"1048576"`` -> bytes (binary units), from 1 byte
    to 1 TiB (the limit is accepted written in the unit its message names);
    ``ValueError`` with a one-line reason otherwise."""
    match = _SIZE.match(text)
    if match is None:
        raise ValueError(f"not a size: {text[:40]!r} "
                         "(write e.g. 4096, 512KiB, 32MiB, 1GiB, 1TiB)")
    whole, fraction, unit = match.groups()
    # bounded digits before any conversion: float("9" * 400) is inf, int() of 5,000 digits
    # raises; a fraction finer than a byte does not matter
    whole = whole.lstrip("0") or "0"
    if len(whole) > len(str(MAX_SIZE)):
        raise ValueError(f"a size must be at most 1TiB, got {text[:40]!r}")
    size = int(float(f"{whole}.{(fraction or '0')[:12]}") * _UNITS[(unit or "")[:1].lower()])
    if size > MAX_SIZE:
        raise ValueError(f"a size must be at most 1TiB, got {text[:40]!r}")
    if size < 1:
        raise ValueError(f"a size must be at least 1 byte, got {text[:40]!r}")
    return size
