"""A JSON text -> ``Doc`` without positions, when it provably reads as the YAML reader reads it.

JSON is YAML, and an OpenAPI document in JSON went through the located YAML reader, which
makes a mark per value as it reads (7.6 s of 7.9 s for 10,000 operations, issue #18). Here
the C ``json`` parser builds the data and the marks are made only when one is read
(``LazyMarks``: a problem to locate re-reads the text with the YAML reader, so every located
line is the one it always was).

The fast path is taken only when the YAML reader would build the same data and report
nothing: anything it cannot prove so (a duplicate key, NaN, a float out of range, a long
number, an escaped surrogate, a character YAML refuses, a key apart from its ``:``, the
nesting or values limit, a syntax error) returns None, and the caller reads the text with
``parse_yaml`` as before, which says what is wrong, where.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from toolhost.config.limits import LIMITS, float_underflow
from toolhost.config.load_budget import values_left
from toolhost.config.tree import Doc, LazyMarks, Mark, Path

__all__ = ["parse_json_fast"]


class _Unproved(Exception):
    """The text may read otherwise as YAML: leave it to the YAML reader."""


# characters YAML's reader refuses (not printable) or reads as line breaks (U+0085, U+2028,
# U+2029: parse_yaml refuses them); an ASCII text needs only DEL looked for (json refuses
# the other control characters itself)
_ODD_CHARS = re.compile(
    "[^\x09\x0A\x0D\x20-\x7E\xA0-\u2027\u202A-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")
# escaped surrogates (libyaml refuses them; json joins a pair), a key's closing quote apart
# from its ':' by a line break (libyaml's simple keys stay on one line) or by a run of
# blanks (a simple key ends at most 1,024 characters from where it starts)
# (possessive: a quote before a long run of line breaks was tried once per split of the run,
# quadratic: 8,000 line breaks took 64 ms, 16 MB of them hours)
_ODD_TEXT = re.compile(r'\\u[dD][89a-fA-F]|"[ \t]*+[\r\n][ \t\r\n]*+:|"[ \t]{16,}+:')
_LONG_KEY = 150  # decoded; written with escapes at most 6x longer, still within 1,024
_LONG_NUMBER = 300  # digits: YAML's own limits (MAX_DIGITS, underflow) far beyond it


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):  # a duplicate key: the YAML reader says which, where
        raise _Unproved
    return out


def _float(text: str) -> float:
    value = float(text)
    if len(text) > _LONG_NUMBER or not math.isfinite(value) or float_underflow(text, value):
        raise _Unproved
    return value


def _int(text: str) -> int:
    if len(text) > _LONG_NUMBER:
        raise _Unproved
    return int(text)


def _constant(text: str) -> Any:  # NaN, Infinity, -Infinity: not JSON, not finite
    raise _Unproved


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_float=_float, parse_int=_int,
                            parse_constant=_constant)


def _count(data: Any, depth_limit: int, value_limit: int) -> tuple[int, int]:
    """The nodes (the root included: a mark each) and the values the YAML reader would count
    (each node and each key); raises ``_Unproved`` past the nesting or values limit."""
    nodes = keys = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    push = stack.append
    while stack:
        node, depth = stack.pop()
        items = node.values() if type(node) is dict else node
        if type(node) is dict and node:
            keys += len(node)
            if max(map(len, node)) > _LONG_KEY:
                raise _Unproved
        nodes += len(items)
        for value in items:
            if type(value) is dict or type(value) is list:
                if depth >= depth_limit:
                    raise _Unproved
                push((value, depth + 1))
        if nodes + 1 + keys > value_limit:
            raise _Unproved
    return nodes + 1, nodes + 1 + keys


def parse_json_fast(text: str, file: str, layer: str) -> Doc | None:
    """``text`` (a JSON object) as the YAML reader would build it, its marks made when first
    read; None when that cannot be proved here (read it with ``parse_yaml``)."""
    if not text[:64].lstrip().startswith("{") or _ODD_TEXT.search(text) is not None:
        return None
    if ("\x7f" in text) if text.isascii() else _ODD_CHARS.search(text) is not None:
        return None
    try:
        data = _DECODER.decode(text)
        if type(data) is not dict:
            return None
        nodes, _ = _count(data, LIMITS.depth, values_left())
    except (_Unproved, ValueError, RecursionError):  # (JSONDecodeError is a ValueError)
        return None

    def marks() -> dict[Path, Mark]:
        from toolhost.config.yaml_source import parse_yaml  # (only when a mark is read)

        doc = parse_yaml(text, file, layer, [])
        return dict(doc.marks) if doc is not None else {}

    return Doc(data, LazyMarks(marks, nodes, file, layer), file, layer)
