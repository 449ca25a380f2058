"""Bounded JSON in, valid JSON out: how every transport decodes and encodes a message.

``decode`` refuses a message that is too large or nested too deeply *before* parsing it
(one linear scan, at C speed on ordinary messages), refuses ``NaN``/``Infinity`` and
numbers that overflow a float, and reports every failure as a ``WireError`` carrying the
JSON-RPC code and a short message, never a ``RecursionError``. ``encode`` always produces
valid UTF-8 JSON (a lone surrogate in a string is escaped instead of failing).
"""

from __future__ import annotations

import json
import math
import sys
from itertools import accumulate, repeat
from operator import sub
from typing import Any

from toolhost import jsonfast
from toolhost.excerpt import cut
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import jsonrpc as rpc

__all__ = ["WireError", "check_depth", "decode", "encode", "encode_answer"]


class WireError(ValueError):
    """A message that cannot be accepted: ``code`` is the JSON-RPC error to answer with."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def response(self) -> dict[str, Any]:
        """The error answer (id null: the message was never read far enough to know it)."""
        return rpc.error_response(None, self.code, self.message)


_NOT_SKELETON = bytes(b for b in range(256) if b not in b'"[]{},')
_PARENS = bytes.maketrans(b"[]{}", b"()()")  # depth does not care which kind of bracket
_COMMA = b","
_STEPS = bytes.maketrans(b"()", b"\x02\x00")  # minus 1 each: the depth step
_QUICK_PASSES = 16


def _skeleton(data: bytes) -> bytes:
    """The brackets and commas of ``data`` outside its strings (brackets as ``(``/``)``).

    Every step is a C loop over the bytes (no regex, nothing to backtrack): escaped
    backslashes, then escaped quotes go; then all but quotes and brackets; then every
    adjacent pair of quotes (an empty string, or a gap without brackets or commas between
    two strings); what quotes are left alternate open/close around what strings hold.
    """
    plain = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    skeleton = plain.translate(None, _NOT_SKELETON).replace(b'""', b"")
    if b'"' in skeleton:
        skeleton = b"".join(skeleton.split(b'"')[::2])
    return skeleton.translate(_PARENS)


def _few_openers(data: bytes, limit: int) -> bool:
    """Whether ``data`` has at most ``limit`` opening brackets (``find`` is a memchr, where
    ``count`` walks every byte: a 100 KB argument costs microseconds, not a tenth of a ms)."""
    if len(data) <= 8192:  # a short message: two counts in C beat a loop of finds
        return data.count(b"[") + data.count(b"{") <= limit
    seen = 0
    for opener in (b"[", b"{"):
        at = data.find(opener)
        while at >= 0:
            seen += 1
            if seen > limit:
                return False
            at = data.find(opener, at + 1)
    return True


def check_depth(data: bytes, max_depth: int, max_values: int | None = None) -> None:
    """Raise ``WireError`` if the JSON text ``data`` nests deeper than ``max_depth`` or,
    with ``max_values``, holds more containers and array items / object members than that.

    Linear and non-recursive. Brackets and commas inside strings are not counted; on
    malformed input (an unterminated string) the scan may over-count, which only ever
    refuses something ``json.loads`` would refuse too. The value count bounds memory: a
    32 MB line of ``{},`` would parse into about 1 GB of dicts.
    """
    # Each comma takes a byte and each container two: a short message cannot hold many.
    count_values = max_values is not None and len(data) > max_values
    if not count_values and _few_openers(data, max_depth):
        return  # cannot nest deeper than it has brackets: the usual case
    skeleton = _skeleton(data)
    if max_values is not None and count_values:
        commas = skeleton.count(_COMMA)
        values = commas + (len(skeleton) - commas) // 2
        if values > max_values:
            raise WireError(rpc.INVALID_REQUEST, f"Invalid Request: the message holds about "
                            f"{values:,} JSON values; the limit is {max_values:,}")
    parens = skeleton.replace(_COMMA, b"")
    # Wide but shallow (a long array of small objects): each pass drops the innermost
    # pairs, one level, in C; a few passes empty it.
    level = parens
    for _ in range(min(max_depth, _QUICK_PASSES)):
        if not level:
            return
        level = level.replace(b"()", b"")
    if not level:
        return
    deepest = max(accumulate(map(sub, parens.translate(_STEPS), repeat(1))), default=0)
    if deepest > max_depth:
        raise WireError(rpc.INVALID_REQUEST, f"Invalid Request: the message nests "
                        f"{deepest:,} levels deep; the limit is {max_depth:,}")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"number {cut(text, 40)} is out of range")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# Built once: json.loads with hooks would build a decoder per message.
_decode = json.JSONDecoder(parse_float=_finite, parse_constant=_no_constant).decode


def decode(data: bytes, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse one message, bounded by ``limits`` (size and depth); ``WireError`` if not."""
    if len(data) > limits.max_message_bytes:
        raise WireError(rpc.INVALID_REQUEST, f"Invalid Request: the message is {len(data):,} "
                        f"bytes; the limit is {limits.max_message_bytes:,}")
    check_depth(data, limits.max_depth, limits.max_values)
    value = jsonfast.loads(data)  # orjson, when it reads it exactly as below
    if value is not jsonfast.NOT_FAST:
        return value
    try:
        if data.startswith(b"\xef\xbb\xbf"):  # a UTF-8 byte order mark, as json.loads allows
            data = data[3:]
        return _decode(data.decode())
    except RecursionError:  # unreachable after check_depth; a net, not the mechanism
        raise WireError(rpc.INVALID_REQUEST, "Invalid Request: nested too deeply") from None
    except ValueError as exc:  # includes UnicodeDecodeError
        said = str(exc)
        if "int_max_str_digits" in said:  # Python's advice to its programmer, not the client's
            said = f"an integer of more than {sys.get_int_max_str_digits():,} digits"
        raise WireError(rpc.PARSE_ERROR, f"Parse error: {cut(said)}") from None


_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_dumps_ascii = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode


def encode(message: Any) -> bytes:
    """Compact UTF-8 JSON; raises ``TypeError``/``ValueError`` for what JSON cannot hold."""
    text = _dumps(message)
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate (from a "\\ud800" escape): keep it escaped
        return _dumps_ascii(message).encode()


def encode_answer(answer: dict[str, Any]) -> bytes:
    """``encode`` an answer; if it cannot be encoded, an Internal error answer for its id."""
    try:
        return encode(answer)
    except (TypeError, ValueError, RecursionError) as exc:
        request_id = answer.get("id")
        return encode(rpc.error_response(
            request_id if rpc.is_valid_id(request_id) else None, rpc.INTERNAL_ERROR,
            f"Internal error: the answer is not valid JSON ({cut(str(exc), 120)})"))
