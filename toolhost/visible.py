"""Text from elsewhere (the model, a tool, the Claude CLI) shown on a terminal, harmlessly.

A terminal obeys what it is sent: an escape sequence clears the screen, moves the cursor
over lines already shown, or writes the clipboard (OSC 52); a carriage return or a bidi
override makes a line read as something it is not. ``visible`` writes every such character
as an escape a person can read (``\\x1b``, ``\\r``, ``\\u202e``): C0 and C1 controls, DEL,
line and paragraph separators, bidi controls (U+202A-202E, U+2066-2069, U+200E/F, U+061C),
every other invisible format character (zero-width spaces, tag characters, ...), the
printable characters that show nothing (a combining grapheme joiner, a Hangul filler, a
variation selector other than the emoji ones), and lone surrogates. Everything ``toolhost
run`` shows people under ``--output text`` and every permission question goes through it
(``--output json`` is JSON, escaped JSON's way).

``lines=True`` keeps newlines and tabs (model text, a block of JSON); ``name`` shows a name
exactly, in printable ASCII: a backslash and every other character is written as its escape,
so two different names never look the same: not a Cyrillic ``а`` in a ``Bаsh`` that is not
Bash, nor a combining grapheme joiner, a variation selector, a Hangul filler or a blank
braille cell after it (printable characters that show nothing).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

from toolhost.textstream import StreamWrapper

__all__ = ["InertStream", "inert_json", "visible"]

_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_JOINER = "\u200d"  # inside emoji sequences (a family, a flag): kept in text, not in names


def _escape(char: str) -> str:
    code = ord(char)
    if char == "\\":
        return "\\\\"
    if code < 0x100:
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\x{code:02x}")
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


# Printable by their category, yet showing nothing: ignorable by default (Unicode's
# Default_Ignorable_Code_Point) but no format character; the two emoji variation selectors
# (U+FE0E/F: text or emoji style) stay, as the joiner does
_BLANK = frozenset(chr(c) for c in (
    0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x3164, 0xFFA0,
    *range(0xFE00, 0xFE0E), *range(0xE0100, 0xE01F0)))


def _text(char: str) -> str:
    if char in _BLANK:
        return _escape(char)
    return _escape(char) if unicodedata.category(char) in _HIDDEN and char != _JOINER \
        else char


def _lines(char: str) -> str:
    return char if char in "\n\t" else _text(char)


def _json(char: str) -> str:
    # JSON's escape of what ``_text`` would escape: the same string once parsed. ASCII but
    # DEL is json.dumps's own: its escapes, a backslash, the line breaks of ``indent``
    if char < "\x7f" or _text(char) == char:
        return char
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells a character past U+FFFF as its UTF-16 pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _name(char: str) -> str:
    return char if "\x20" <= char <= "\x7e" and char != "\\" else _escape(char)


class _Table(dict[int, "str | int"]):
    """What ``str.translate`` puts for each code point, worked out once per character seen:
    the work is a lookup in C per character, not a Python call (a 1 MB line of escapes
    took seconds). Bounded: cleared past ``_SEEN`` characters."""

    def __init__(self, show: Callable[[str], str]) -> None:
        super().__init__()
        self.show = show

    def __missing__(self, code: int) -> str | int:
        if len(self) >= _SEEN:
            self.clear()
        shown = self.show(chr(code))
        value: str | int = code if len(shown) == 1 else shown
        self[code] = value
        return value


_SEEN = 1 << 16
_TEXT, _LINES, _NAMES, _JSON = _Table(_text), _Table(_lines), _Table(_name), _Table(_json)


def visible(text: str, *, lines: bool = False, name: bool = False) -> str:
    """``text`` with every character that could act on a terminal, or hide from a reader,
    written as a visible escape (see the module docstring); one line unless ``lines``."""
    if text.isascii() and text.isprintable() and (not name or "\\" not in text):
        return text  # the fast path: printable ASCII is never changed (but a name's "\\")
    return text.translate(_NAMES if name else _LINES if lines else _TEXT)


def inert_json(text: str) -> str:
    """``text``, JSON as ``json.dumps(..., ensure_ascii=False)`` writes it, with every
    character ``visible`` would escape written as JSON's ``\\uXXXX`` instead: the same JSON
    value, and nothing in it can act on the terminal (or a log reader's) it is printed on.
    json.dumps escapes the C0 controls itself; this takes DEL, C1 controls (8-bit CSI
    U+009B), bidi overrides, line separators, zero-width and blank characters, and lone
    surrogates."""
    if text.isascii() and "\x7f" not in text:
        return text
    return text.translate(_JSON)


class InertStream(StreamWrapper):
    """A text stream that writes ``visible(text, lines=True)`` to ``inner``.

    ``toolhost run`` puts it on ``sys.stdout`` and ``sys.stderr`` while the session runs (its
    own transcript and progress lines keep the streams they were made with), so what an
    in-process python tool or a library prints cannot act on the person's terminal either:
    a ``print("\\x1b[1A\\x1b[2K")`` shows as text instead of erasing the line above it (a
    permission question, a decision). Writes to fd 1 or 2 below Python (``os.write``, a child
    process) are not seen here.
    """

    def write(self, text: str) -> int:
        self.inner.write(visible(text, lines=True))
        return len(text)
