"""Custom ``Mcp-Param-*`` headers (SEP-2243) and how they must agree with a ``tools/call``.

A tool's inputSchema may mark a string, integer or boolean property with
``x-mcp-header: Region``; a 2026-07-28 client then repeats that argument in the HTTP header
``Mcp-Param-Region``, so a gateway can route or authorize on it without parsing JSON. The
gateway acts on the header while the tool runs on the body, so they must agree, or a call
let through for region ``eu`` could run for ``us``. The rule (400, ``HEADER_MISMATCH``):

- a header and its argument are present together and equal, or absent together (``null``
  counts as absent). A modern call that has the argument but not the header is refused; a
  2025 call need not send the headers, but one it sends must agree;
- a value is compared after the optional whitespace around it; ``=?base64?...?=`` wraps a
  value that is not plain ASCII (canonical base64 of its UTF-8: a malformed or
  non-canonical wrapping matches nothing), and raw UTF-8 bytes spelling the value count;
- a boolean is ``true``/``false``; an integer property compares as a number (``42`` is
  ``42.0``), written as a plain decimal;
- a header sent twice is refused (a first-copy and a last-copy reader would disagree).

Only annotations that are well formed count (``toolhost.compile.header_fields``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from typing import Any, Protocol

from toolhost.compile.header_fields import Field
from toolhost.excerpt import cut

__all__ = ["param_problem"]

PREFIX = "Mcp-Param-"
_B64 = re.compile(r"=\?base64\?(?P<payload>.*)\?=", re.DOTALL)
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_OWS = " \t"


class Headers(Protocol):
    """Starlette's request headers (case-insensitive, repeated names kept)."""

    def getlist(self, key: str) -> list[str]: ...


def param_problem(fields: list[Field], arguments: Any, headers: Headers, *,
                  modern: bool) -> str | None:
    """Why the ``Mcp-Param-*`` headers of a ``tools/call`` disagree with its ``arguments``,
    given the tool's ``annotated`` fields, or None."""
    for path, token, kind in fields:
        name = PREFIX + token
        values = headers.getlist(name)
        if len(values) > 1:
            return f"header {name} appears {len(values)} times; send it once"
        sent = values[0].strip(_OWS) if values else None
        value = _at(arguments, path)
        where = "arguments." + ".".join(path)
        shown = _render(value)
        if value is None or shown is None:
            if sent is not None:
                return (f"header {name} {_q(sent)} is sent but {where} is "
                        f"{'absent' if value is None else 'not a string, number or boolean'}")
            continue
        if sent is None:
            if modern:
                return (f"header {name} is missing; a 2026-07-28 call repeats {where} "
                        f"({_q(shown)}) in it")
            continue
        decoded = _decode(sent)
        if decoded is None:
            return f"header {name} {_q(sent)} is not canonical =?base64?...?= of UTF-8 text"
        if not _same(kind, value, shown, decoded):
            return f"header {name} {_q(sent)} does not match {where} {_q(shown)}"
    return None


def _at(arguments: Any, path: tuple[str, ...]) -> Any:
    node = arguments
    for key in path:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def _render(value: Any) -> str | None:
    """An argument as a client writes it into its header (None: it has no header form)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value) if abs(value) < 10 ** 4000 else None
    if isinstance(value, float):
        return repr(value) if value == value and abs(value) != float("inf") else None
    return None


def _decode(sent: str) -> str | None:
    """A header value as text: unwrapped from ``=?base64?...?=``, or its raw UTF-8 bytes
    read as such (Starlette reads a header as latin-1); None when the wrapping is bad."""
    wrapped = _B64.fullmatch(sent)
    if wrapped is None:
        try:
            return sent.encode("latin-1").decode("utf-8")
        except UnicodeError:
            return sent
    payload = wrapped.group("payload")
    try:
        raw = base64.b64decode(payload, validate=True)
    except binascii.Error:
        return None
    if base64.b64encode(raw).decode("ascii") != payload:
        return None  # one value, one spelling
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _same(kind: str, value: Any, shown: str, decoded: str) -> bool:
    if (kind == "integer" and isinstance(value, int | float) and not isinstance(value, bool)
            and _DECIMAL.fullmatch(decoded)):
        whole, _, fraction = decoded.partition(".")
        if fraction.strip("0") or (isinstance(value, float) and not value.is_integer()):
            return False
        try:
            return int(whole) == int(value)
        except ValueError:  # more digits than Python reads as an int
            return False
    return decoded == shown


def _q(value: object) -> str:
    return cut(repr(value), 100)
