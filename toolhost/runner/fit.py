"""A line cut to the terminal's width, for lines rewritten in place.

A progress line is erased with ``\\r`` and erase-line (``ESC[K``), which only reach the row
the cursor is on: a line wider than the terminal wraps, and the rows above its last one
stay on screen for good (a 10-column terminal kept every progress line of a run). So a line
rewritten in place is cut to fit one row, counted in columns as a terminal shows them: an
East Asian wide character takes two, a combining mark none.
"""

from __future__ import annotations

import os
import unicodedata
from typing import TextIO

__all__ = ["columns_of", "fit"]

MIN_COLUMNS = 2  # below this nothing but the cut mark fits


def columns_of(stream: TextIO) -> int | None:
    """The width of the terminal ``stream`` writes to, or None (not a terminal, unknown)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, ValueError, OSError):
        return None
    return columns if columns > 0 else None


def _width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def fit(text: str, columns: int | None) -> str:
    """``text`` cut (with ``…``) to less than ``columns`` columns, so that it never wraps
    (the last column is left free: some terminals wrap as a line fills it). Unchanged when
    ``columns`` is None. ``text`` is one line of printable characters (``visible``)."""
    if columns is None:
        return text
    room = max(columns - 1, MIN_COLUMNS - 1)
    if len(text) <= room and text.isascii():
        return text
    used = 0
    for i, char in enumerate(text):
        used += _width(char)
        if used > room:
            # the cut mark takes the place of what is cut (one column)
            head, taken = text[:i], used - _width(char)
            while head and taken > room - 1:
                taken -= _width(head[-1])
                head = head[:-1]
            return head + "…"
    return text
