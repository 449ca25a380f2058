"""A TOML key of more parts than the depth limit, found before tomllib reads it.

A dotted key (``a.b.c = 1``, ``{a.b = 1}``) or a table header (``[a.b.c]``, ``[[a.b]]``)
nests one table per part, but only the parsed data says how deep: tomllib first builds,
for each dotted key, every prefix of it as a tuple, so one key of 16,000 parts (a 32 KB
file) took it 1 GB and 4 s, and twice that four times as much. A key whose parts alone
pass the limit is refused here, from the text; nesting built from several keys is still
measured on the data (``toml_source``).
"""

from __future__ import annotations

import re

from toolhost.config.limits import _SKIP
from toolhost.config.toml_marks import scan_marks
from toolhost.config.tree import Path, deep_path

__all__ = ["too_many_parts"]

_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]++|\\.)*+"|'[^'\n]*+')"""
# a run starts after no word, dot or quote: a failed run is not tried again from inside it
_START = r"""(?<![A-Za-z0-9_\-."'])(?<!\.[ \t])"""
_PATTERNS: dict[int, re.Pattern[str]] = {}


def _pattern(limit: int) -> re.Pattern[str]:
    found = _PATTERNS.get(limit)
    if found is None:  # strings and comments are skipped whole: their dots are no key's
        found = _PATTERNS[limit] = re.compile(
            rf"{_START}({_PART}(?:[ \t]*+\.[ \t]*+{_PART}){{{limit + 1},}}+)|(?:{_SKIP})")
    return found


def too_many_parts(text: str, limit: int) -> tuple[int, str]:
    """The offset of the first key of more than ``limit`` + 1 dotted parts outside strings
    and comments, and its first parts as a key path; ``(-1, "")`` when there is none."""
    if text.count(".") <= limit:  # (almost every file: no scan)
        return -1, ""
    for found in _pattern(limit).finditer(text):
        if found[1] is not None:
            ends = [m.end() for m in re.finditer(_PART, found[1])][:limit + 2]
            return found.start(1), _key_path(text, found.start(1), found[1][:ends[-1]])
    return -1, ""


def _key_path(text: str, at: int, key: str) -> str:
    """The key path of ``key`` (its first parts past the limit) written at ``at``, with the
    table or inline table around it: the mark scanner reads the text before it, then the
    key cut short, closed as what it opens (a header, or a value)."""
    before = text[:at].rstrip(" \t")
    closing = "]]" if before.endswith("[[") else "]" if before.endswith("[") else " = 0"
    try:
        marks = scan_marks(text[:at] + key + closing, "", "")
    except RecursionError:  # (not expected: the scanner walks keys without recursing)
        marks = {}
    deepest: Path = ()
    for path in marks:  # the last of the longest: the key's own
        if len(path) >= len(deepest):
            deepest = path
    return deep_path(deepest)
