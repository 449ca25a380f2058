"""Runs of character escapes (``&#NN;``, ``&#xNN;``, ``\\xNN``, ``\\uNNNN``, ``\\u{NN}``,
``\\x{NN}``, ``\\U000000NN``, ``%NN``, ``\\NNN`` octal, ``\\N{NAME}``; Python's
``chr(NN)+...``) and the bytes they spell (for ``toolhost.redaction.decoded``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

__all__ = ["CHR", "ESCAPES", "unescape"]

# (a few separators between them too: one escape a list item, a word or a line)
ESCAPES = (r"(?:(?:&#[xX]?[0-9a-fA-F]+;?|\\+[xuU][0-9a-fA-F]+|\\+[xu]\{[0-9a-fA-F]{1,8}\}"
        r"|%[0-9a-fA-F][0-9a-fA-F]|\\+[0-7][0-7][0-7]|\\+N\{[A-Za-z0-9 -]{1,88}\})"
        r"[ \t\r\n,;:\"'|+]{0,4}){7,}"
        r"(?:&#[xX]?[0-9a-fA-F]+;?|\\+[xuU][0-9a-fA-F]+|\\+[xu]\{[0-9a-fA-F]{1,8}\}"
        r"|%[0-9a-fA-F][0-9a-fA-F]|\\+[0-7][0-7][0-7]|\\+N\{[A-Za-z0-9 -]{1,88}\})")
CHR = re.compile(r"(?:chr\([0-9]{1,7}\)[ \t]*[+,][ \t]*){7,}chr\([0-9]{1,7}\)")
_ONE = re.compile(r"&#[xX]?[0-9a-fA-F]+;?|\\+[xuU][0-9a-fA-F]+|\\+[xu]\{[0-9a-fA-F]{1,8}\}"
                  r"|%[0-9a-fA-F]{2}|\\+[0-7]{3}|chr\([0-9]+\)|\\+N\{[A-Za-z0-9 -]{1,88}\}")


def unescape(run: str) -> Iterator[int]:
    """The bytes a run of escapes spells (a code point past 255 as its UTF-8; a unit that
    spells no character is left out)."""
    for unit in _ONE.finditer(run):
        text = unit.group().lstrip("\\").rstrip(";")
        if text.startswith("N{"):  # a character by its name (Python's ``\\N{...}``)
            try:
                named = unicodedata.lookup(text[2:-1])
            except KeyError:  # no such name: spells nothing
                continue
            yield from named.encode("utf-8", "surrogatepass")
            continue
        if text.startswith(("&#x", "&#X")):
            digits, base = text[3:], 16
        elif text.startswith("&#"):
            digits, base = text[2:], 10
        elif text.startswith(("x", "u", "U", "%")):
            digits, base = text[1:].strip("{}"), 16
        elif text.startswith("chr("):
            digits, base = text[4:-1], 10
        else:
            digits, base = text, 8
        try:
            point = int(digits[:8], base)
            if point < 256:
                yield point
            else:
                yield from chr(point).encode("utf-8", "surrogatepass")
        except ValueError:
            continue
