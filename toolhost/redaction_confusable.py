"""A secret written in look-alike characters: mathematical letters, circled or fullwidth
ones, superscripts, Cyrillic and Greek letters that look Latin.

``𝐬𝐤-𝐥𝐢𝐯𝐞-𝟗𝐟𝟖𝐞...`` (U+1D400's bold letters), ``ⓢⓚ-ⓛⓘⓥⓔ``, or ``sk-livе`` with a Cyrillic
``е`` reads as the secret to a person and to a model, and is none of its forms. ``folded``
maps each such character to the ASCII one it looks like, one character for one (so a place
in the folded text is the same place in the text): NFKC where it gives one ASCII character
(mathematical, enclosed, fullwidth, super- and subscript letters and digits), and a table of
the Cyrillic and Greek letters that are drawn as Latin ones (Unicode's confusables for them).
The redactor looks for its secrets in the folded text too (only a text that is not ASCII);
and in the text without its combining marks (``unmarked``: ``s̶k̶-̶l̶i̶v̶e̶``, a strike or an
underline over each character), each place mapped back to the text's.
"""

from __future__ import annotations

import functools
import re
import unicodedata

__all__ = ["folded", "unmarked"]

# combining marks: diacritics, their extensions and supplement, for symbols, half marks
_MARKS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]+")

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


def unmarked(text: str) -> tuple[str, list[int]] | None:
    """``text`` without its combining marks, and where each of its characters is in
    ``text`` (one more: the text's end); None: it has none."""
    if _MARKS.search(text) is None:
        return None
    kept: list[str] = []
    where: list[int] = []
    at = 0
    for marks in _MARKS.finditer(text):
        kept.append(text[at:marks.start()])
        where += range(at, marks.start())
        at = marks.end()
    kept.append(text[at:])
    where += range(at, len(text) + 1)
    return "".join(kept), where
