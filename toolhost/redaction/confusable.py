"""A secret written in look-alike characters: mathematical letters, circled or fullwidth
ones, superscripts, Cyrillic and Greek letters that look Latin.

``𝐬𝐤-𝐥𝐢𝐯𝐞-𝟗𝐟𝟖𝐞...`` (U+1D400's bold letters), ``ⓢⓚ-ⓛⓘⓥⓔ``, or ``sk-livе`` with a Cyrillic
``е`` reads as the secret to a person and to a model, and is none of its forms. ``folded``
maps each such character to the ASCII one it looks like, one character for one (so a place
in the folded text is the same place in the text): NFKC where it gives one ASCII character
(mathematical, enclosed, fullwidth, super- and subscript letters and digits), and a table of
the Cyrillic and Greek letters that are drawn as Latin ones (Unicode's confusables for them).
The redactor looks for its secrets in the folded text too (only a text that is not ASCII);
and in the text without what a reader does not see between its characters (``unseen``), each
place mapped back to the text's: combining marks (``s̶k̶-̶l̶i̶v̶e̶``, a strike or an underline
over each character), a terminal's escape sequences (a colour per character, ``grep
--color``), overstrikes (``s\bs``, ``_\bs``: bold and underline as ``man`` and ``nroff``
write them), other control characters, format characters (zero-width and bidi controls, the
soft hyphen), variation selectors; and Unicode's tag characters (U+E0020-E007E, invisible) as
the ASCII they stand for ("ASCII smuggling": a whole secret no one sees, which a model reads).
"""

from __future__ import annotations

import functools
import io
import re
import unicodedata
from array import array
from collections.abc import Sequence

__all__ = ["CONTROLS", "folded", "unseen"]

# what a reader does not see between two characters: combining marks (diacritics, their
# extensions and supplement, for symbols, half marks); a terminal's escape sequences (CSI,
# OSC, two-character ones); a character overstruck (the one before a backspace); other
# control characters (not a tab or a line break); format characters (zero-width, bidi,
# soft hyphen, tag begin/cancel) and variation selectors
_UNSEEN = re.compile(
    "(?:[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
    "|\x1b\\[[0-?]{0,64}[ -/]{0,8}[@-~]|\x1b\\][^\x07\x1b]{0,512}(?:\x07|\x1b\\\\)?"
    "|\x1b[ -/]{0,8}[0-~]|[^\x08\n]\x08|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]"
    "|[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\ufe00-\ufe0f\U000e0001\U000e007f\U000e0100-\U000e01ef])++")
# an ASCII text holds none of them unless it holds a control character (C speed to tell)
CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG = re.compile("[\U000e0020-\U000e007e]")
_TAGS = {point: chr(point - 0xE0000) for point in range(0xE0020, 0xE007F)}

# Cyrillic and Greek letters drawn as Latin ones (from Unicode's confusables.txt)
_LOOKALIKES = {
    "а": "a", "в": "B", "е": "e", "ё": "e", "к": "k", "м": "M", "н": "H", "о": "o",
    "р": "p", "с": "c", "т": "T", "у": "y", "х": "x", "ѕ": "s", "і": "i", "ї": "i",
    "ј": "j", "һ": "h", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ɡ": "g",
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
    "С": "C", "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Һ": "h",
    "Ԛ": "Q", "Ԝ": "W", "Ӏ": "l",
    "α": "a", "ο": "o", "ν": "v", "κ": "k", "ι": "i", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K",
    "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
}
# where NFKC gives ASCII letters and digits for one character each
_RANGES = ((0x00AA, 0x00BE), (0x2070, 0x209F), (0x2100, 0x214F), (0x2460, 0x24FF),
           (0x3251, 0x32BF), (0xFF01, 0xFF5E), (0x1D400, 0x1D7FF), (0x1F100, 0x1F1FF),
           (0x1FBF0, 0x1FBF9))


@functools.cache
def _table() -> tuple[dict[int, str], frozenset[str]]:
    """The look-alikes' ASCII characters, and the look-alikes."""
    table = {ord(char): ascii_ for char, ascii_ in _LOOKALIKES.items()}
    for low, high in _RANGES:
        for point in range(low, high + 1):
            plain = unicodedata.normalize("NFKC", chr(point))
            if len(plain) == 1 and plain.isascii() and plain.isprintable():
                table[point] = plain
    return table, frozenset(chr(point) for point in table)


def folded(text: str) -> str:
    """``text`` with each look-alike character as the ASCII one it looks like (the same
    length: a place in it is the same place in ``text``). A text without one is returned
    as it is (a set's look at each character, C speed; the ``translate`` of a megabyte
    through a dictionary costs 0.2 s)."""
    table, alikes = _table()
    if alikes.isdisjoint(text):
        return text
    return text.translate(table)


def unseen(text: str) -> tuple[str, Sequence[int]] | None:
    """``text`` without what a reader does not see between its characters (combining marks,
    escape sequences, overstrikes, control and format characters), its tag characters as
    the ASCII they stand for, and where each of its characters is in ``text`` (one more:
    the text's end); None: it has none of them."""
    tagged = not text.isascii() and _TAG.search(text) is not None
    if _UNSEEN.search(text) is None:
        if not tagged:
            return None
        return text.translate(_TAGS), range(len(text) + 1)  # one for one
    # 8 bytes a place (a list: a pointer and an int object, ~40), the text kept written piece
    # by piece (a list of the pieces: ~60 bytes each), and the runs matched possessively
    # (`+` keeps a backtrack state per repeat: ~150 bytes a control character)
    kept = io.StringIO()
    where = array("q")
    at = 0
    for marks in _UNSEEN.finditer(text):
        kept.write(text[at:marks.start()])
        where.extend(range(at, marks.start()))
        at = marks.end()
    kept.write(text[at:])
    where.extend(range(at, len(text) + 1))
    bare = kept.getvalue()
    return (bare.translate(_TAGS) if tagged else bare), where
