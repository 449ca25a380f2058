"""What a permission question shows of a call: bounded, inert on a terminal, head and tail.

The question shows the tool's name and its input as indented JSON, every character that
could act on a terminal written as an escape (``toolhost.visible``). Everything is measured
as it is shown (an escape counts as its characters: a bidi control is six), so the bounds
hold whatever the input holds:

- ``SHOWN`` (4,000) characters of values in the question, ``WHOLE`` (1,000,000) after ``s``.
  A value over its share shows its start and its end (where ``; curl ... | sh`` sits),
  saying how many characters of it are not shown.
- A key past ``KEY`` (200) characters, and a tool name past ``NAME`` (200), is shortened the
  same way (``s``: up to the whole budget).
- Each field gets at least ``MIN_FIELD`` (80) characters; an input with more fields than fit
  shows its first and its last fields and says how many are not shown (``s`` shows up to
  12,500 fields).

``Shown.cut`` says whether anything was shortened (the question then offers ``s``, or says
that even ``s`` cannot show it all).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from toolhost.visible import visible

__all__ = ["KEY", "MIN_FIELD", "NAME", "SHOWN", "WHOLE", "Shown", "shown_input", "shown_name",
           "shown_text"]

SHOWN = 4000
WHOLE = 1_000_000
KEY = 200
NAME = 200
MIN_FIELD = 80


class Shown(NamedTuple):
    """Text for the question, and whether any of what it shows was shortened."""

    text: str
    cut: bool


def _dump(value: Any) -> str:
    return _squeezed(json.dumps(value, indent=2, ensure_ascii=False, default=str))


# Blank characters a terminal shows as empty columns (a space, the other Unicode spaces, a
# blank braille cell); a tab and a line break are escaped by JSON already
_BLANKS = " \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800"
# A run of them long enough to leave a row empty, not at a line's start (the indentation
# of indent=2 follows a line break; inside a string a line break is JSON's ``\n``)
_RUN = re.compile(f"(?<![\n{_BLANKS}])[{_BLANKS}]{{{16},}}")
_SAME = re.compile(f"([{_BLANKS}])\\1*")


def _blanks(match: re.Match[str]) -> str:
    # each stretch of one character as its JSON escape and how many: ``\u0020{3000}``. JSON
    # never writes a blank as an escape, nor a single backslash but in an escape, so this
    # cannot be text of the input (whose backslashes show doubled)
    return _SAME.sub(lambda same: f"\\u{ord(same.group(1)):04x}"
                     + (f"{{{len(same.group())}}}" if len(same.group()) > 1 else ""),
                     match.group())


def _squeezed(dumped: str) -> str:
    """JSON text with every run of 16 or more blank characters inside it (not indentation)
    written as escapes with counts: thousands of spaces in a value otherwise push its start
    (``curl ... | sh``) out of sight, leaving empty rows and a harmless-looking end above
    the question's prompt."""
    return _RUN.sub(_blanks, dumped) if "  " in dumped or not dumped.isascii() else dumped


_CHUNK = 4096
Show = Callable[[str], str]


def _text(text: str) -> str:
    return visible(text)


def _lines(text: str) -> str:
    return visible(text, lines=True)


def _name(text: str) -> str:
    return visible(text, name=True)


def _fit(text: str, budget: int, show: Show, *, from_end: bool = False) -> int:
    """How many characters of the start (or the end) of ``text`` show in at most ``budget``
    characters (``visible`` escapes each character on its own, so pieces add up); the work
    is about ``budget`` characters, whatever the length of ``text``."""
    taken = used = 0
    while taken < len(text):
        step = min(_CHUNK, len(text) - taken)
        piece = text[len(text) - taken - step:len(text) - taken] if from_end \
            else text[taken:taken + step]
        size = len(show(piece))
        if used + size <= budget:
            used, taken = used + size, taken + step
            continue
        for char in (reversed(piece) if from_end else piece):  # the last piece, one by one
            size = len(show(char))
            if used + size > budget:
                break
            used, taken = used + size, taken + 1
        break
    return taken


def _cut(text: str, budget: int, show: Show = _lines) -> Shown:
    """``text`` shown in at most about ``budget`` characters: whole, or its start and end."""
    if len(text) <= budget:
        whole = show(text)
        if len(whole) <= budget:
            return Shown(whole, False)
    head = _fit(text, budget * 2 // 3, show)
    tail = _fit(text[head:], budget - budget * 2 // 3, show, from_end=True)
    left = len(text) - head - tail
    return Shown(f"{show(text[:head])} ... ({left} characters not shown) ... "
                 f"{show(text[len(text) - tail:])}", True)


def shown_name(name: str, *, whole: bool = False) -> Shown:
    """A tool name (or another one-line name) for the question, bounded; shown exactly
    (``visible(name=True)``)."""
    return _cut(name, WHOLE if whole else NAME, _name)


def shown_text(text: str, limit: int) -> str:
    """One line of ``text`` shown in at most about ``limit`` characters (start and end)."""
    return _cut(text, limit, _text).text


def shown_input(tool_input: Any, *, whole: bool = False) -> Shown:
    """The input as indented JSON, bounded (see the module docstring); ``whole``: after
    ``s``, up to ``WHOLE`` characters of values."""
    limit = WHOLE if whole else SHOWN
    dumped = _dump(tool_input)
    if not isinstance(tool_input, Mapping) or not tool_input or len(dumped) <= limit:
        shown = _cut(dumped, limit)
        if not shown.cut or not isinstance(tool_input, Mapping) or not tool_input:
            return shown
    items = list(tool_input.items())
    most = max(limit // MIN_FIELD, 2)
    hidden = 0
    if len(items) > most:  # the first and the last fields, and how many are between
        hidden = len(items) - most
        items = items[:most // 2] + items[len(items) - (most - most // 2):]
    budget = max(limit // len(items), MIN_FIELD)
    key_budget = budget if whole else min(budget, KEY)
    fields: list[str] = []
    cut = hidden > 0
    for number, (key, value) in enumerate(items):
        if hidden and number == most // 2:
            fields.append(f"  ... ({hidden} fields not shown) ...")
        shown_key = _cut(_squeezed(json.dumps(str(key), ensure_ascii=False)), key_budget,
                         _text)
        shown_value = _cut(_dump(value), budget)
        cut = cut or shown_key.cut or shown_value.cut
        fields.append(f"  {shown_key.text}: {shown_value.text}")
    return Shown("{\n" + ",\n".join(fields) + "\n}", cut)
