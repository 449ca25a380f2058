"""TOML integers written otherwise than Python writes them (``Doc.spelled``).

``tomllib`` turns ``0x10``, ``0o755``, ``0b11``, ``1_000`` and ``+12`` into ints and keeps no
text; an env value, an argv element or a header passes the value on as text, which was then
Python's ('16', '493', ...). :func:`spelled_ints` finds those literals in the text (outside
strings and comments), and the node each one is the value of by the marks: the last mark at
or before the literal (a key's, or an array element's own). A literal whose node does not
hold that integer is left out (the check is then as before, never a wrong message).
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from toolhost.config.tree import Doc, Path

__all__ = ["maybe_spelled", "spelled_ints"]

# a cheap look first: most files have no such literal, and then nothing is scanned
_MAYBE = r"0[xob][0-9A-Fa-f]|\d_\d|[=,\[][ \t\r\n]*(?:\+\d|-0(?![\d.]))"
# comments and the four kinds of strings skipped whole; integer literals (group 1) outside
_SCAN = (
    r"#[^\n]*+"
    r'|"""(?:[^\\"]++|\\.|"(?!""))*+"""(?:"{1,2}(?!"))?'
    r"|'''.*?'''(?:'{1,2}(?!'))?"
    r'|"(?:[^"\\\n]++|\\.)*+"?'
    r"|'[^'\n]*'?"
    r"|(?<![\w.:+-])([+-]?(?:0x[0-9A-Fa-f_]+|0o[0-7_]+|0b[01_]+|[0-9][0-9_]*))(?![\w.:+-])")
MAX_SPELLED = 2000  # literals looked at: past this many the rest are passed as before


def maybe_spelled(text: str) -> bool:
    """Whether ``text`` may hold such a literal (else :func:`spelled_ints` finds none)."""
    return re.search(_MAYBE, text) is not None


def spelled_ints(text: str, doc: Doc) -> dict[Path, str]:
    """Path -> literal of each integer of ``doc`` (parsed from ``text``) not written as
    Python writes it."""
    found: list[tuple[int, str, int]] = []  # (offset, literal, value)
    for match in re.finditer(_SCAN, text, re.S):
        literal = match.group(1)
        if literal is None:
            continue
        try:
            value = int(literal, 0)
        except ValueError:  # (not TOML either: tomllib accepted the text)
            continue
        if str(value) != literal:
            found.append((match.start(1), literal, value))
            if len(found) >= MAX_SPELLED:
                break
    if not found:
        return {}
    starts = [0, *(i + 1 for i, c in enumerate(text) if c == "\n")]
    marks = sorted((mark.line, mark.column, path) for path, mark in doc.marks.items()
                   if mark.line)
    keys = [(line, column) for line, column, _ in marks]
    out: dict[Path, str] = {}
    for offset, literal, value in found:
        line = bisect.bisect_right(starts, offset)
        at = bisect.bisect_right(keys, (line, offset - starts[line - 1] + 1)) - 1
        if at < 0:
            continue
        path = marks[at][2]
        held = _get(doc.data, path)
        if type(held) is int and held == value:
            out[path] = literal
    return out


def _get(data: Any, path: Path) -> Any:
    for key in path:
        if isinstance(data, list):
            if not isinstance(key, int) or not 0 <= key < len(data):
                return None
        elif not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data
