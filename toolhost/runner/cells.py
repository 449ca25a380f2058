"""What a line of text takes on the terminal: columns, characters as a person sees them
(a base and its combining marks, an emoji and its modifiers), and words.

The answer editor (``line_edit``) moves its cursor and erases by these: Backspace after
``e`` + U+0301 erases the accented letter whole (never the letter and not its accent, or its
accent alone); a CJK character or an emoji takes two columns, so the cursor steps back two.
Widths follow ``unicodedata``'s East Asian Width (W and F: two columns); combining marks,
format characters (a zero width joiner, a variation selector) and emoji modifiers take none.
"""

from __future__ import annotations

import unicodedata

__all__ = ["next_char", "next_word", "prev_char", "prev_word", "shown_width"]

_ZWJ = "\u200d"


def _zero(char: str) -> bool:
    code = ord(char)
    return unicodedata.category(char) in ("Mn", "Me", "Cf") or 0x1F3FB <= code <= 0x1F3FF


def shown_width(text: str, *, ctl: bool = True) -> int:
    """Columns the terminal's echo of ``text`` takes (control characters as ``^X`` when
    ``ctl``, else none)."""
    width = 0
    for char in text:
        code = ord(char)
        if code < 0x20 or code == 0x7F:
            width += 2 if ctl and char not in "\t\n" else 0
        elif 0x80 <= code < 0xA0 or _zero(char):
            continue
        else:
            width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


def _joins(text: str, index: int) -> bool:
    """Whether ``text[index]`` belongs to the character before it (a combining mark, a
    joiner or what a joiner joins, a variation selector, a modifier, a flag's second half)."""
    if index <= 0:
        return False
    char = text[index]
    if _zero(char) or unicodedata.category(char) == "Mc" or text[index - 1] == _ZWJ:
        return True
    if 0x1F1E6 <= ord(char) <= 0x1F1FF:  # regional indicators pair up into flags
        count = 0
        while index - 1 - count >= 0 and 0x1F1E6 <= ord(text[index - 1 - count]) <= 0x1F1FF:
            count += 1
        return count % 2 == 1
    return False


def prev_char(text: str, pos: int) -> int:
    """Where the character a person sees before ``pos`` starts."""
    if pos <= 0:
        return 0
    pos -= 1
    while pos > 0 and _joins(text, pos):
        pos -= 1
    return pos


def next_char(text: str, pos: int) -> int:
    """Where the character a person sees at ``pos`` ends."""
    if pos >= len(text):
        return len(text)
    pos += 1
    while pos < len(text) and _joins(text, pos):
        pos += 1
    return pos


def prev_word(text: str, pos: int) -> int:
    """The start of the word before ``pos`` (blanks before the cursor skipped first)."""
    while pos > 0 and text[pos - 1].isspace():
        pos -= 1
    while pos > 0 and not text[pos - 1].isspace():
        pos -= 1
    return pos


def next_word(text: str, pos: int) -> int:
    """The end of the word at or after ``pos``."""
    while pos < len(text) and text[pos].isspace():
        pos += 1
    while pos < len(text) and not text[pos].isspace():
        pos += 1
    return pos
