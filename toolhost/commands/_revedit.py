"""Rewriting the ``rev`` of an ``extends`` entry in place, only where that is exact.

``toolhost update`` keeps comments, quoting and layout by editing the text, not by dumping
the parsed document. That is safe only for the forms read here exactly: a plain, single- or
double-quoted scalar on the same line as its ``rev`` key, followed by nothing but the end of
the line, a comment, or the ``,``/``}`` of a flow mapping or inline table. Anything else -- a
tag (``!!str v1``), an anchor (``&r v1``), an alias, a block scalar (``>-``), a value on the
next line, a TOML multi-line string (``\"\"\"v1\"\"\"``) -- is refused with a located error
saying to edit that ``rev`` by hand. Every rewrite is then checked by parsing the new text:
the ``rev`` must read as the new value and every other value must be what it was.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

__all__ = ["RevEditError", "rewrite_rev"]

_KEY = re.compile(r"""(?:rev|"rev"|'rev')[ \t]*[:=][ \t]*""")
_FORMS = (("double", re.compile(r'"(?:[^"\\\n]++|\\.)*+"')),
          ("single", re.compile(r"'[^'\n]*'")),
          # a YAML plain scalar of one word that is none of the indicators above
          ("plain", re.compile(r"""[^\s,\[\]{}#'"&*!|>%@`][^\s,\[\]{}#]*""")))
_END = re.compile(r"[ \t]*(?:#.*)?\r?$|[ \t]*[,}]")
# after a plain scalar a comment needs a space before it: `v1#x` is one value, "v1#x"
_END_PLAIN = re.compile(r"(?:[ \t]+#.*|[ \t]*)\r?$|[ \t]*[,}]")
_PLAIN_SAFE = re.compile(r"[A-Za-z0-9_.+/-]+")

Parse = Callable[[str], Any]  # text -> the document's data, or None if it does not parse


class RevEditError(ValueError):
    """A ``rev`` that cannot be rewritten exactly; ``column`` is where its value starts."""

    def __init__(self, message: str, column: int = 0) -> None:
        super().__init__(message)
        self.message, self.column = message, column


def rewrite_rev(text: str, *, line: int, column: int, index: int, new: str,
                parse: Parse, expected: Any) -> tuple[str, Any]:
    """``text`` with the ``rev`` of ``extends[index]`` (its key at ``line``:``column``) set
    to ``new``, and the data it now parses to; RevEditError if that cannot be done exactly.

    ``expected`` is what ``text`` parses to; the result must parse to the same with only
    that ``rev`` changed (so earlier rewrites are kept, and nothing else moves)."""
    lines = text.split("\n")
    if not 0 < line <= len(lines):
        raise RevEditError("cannot find this rev in the file")
    row = lines[line - 1]
    key = _KEY.match(row, column - 1)
    if key is None:
        raise RevEditError("cannot find this rev's value after its key", column)
    start = key.end()
    found = None
    if not row.startswith(('"""', "'''"), start):
        found = next(((form, m) for form, pattern in _FORMS
                      if (m := pattern.match(row, start)) is not None), None)
    end = _END_PLAIN if found is not None and found[0] == "plain" else _END
    if found is None or end.match(row, found[1].end()) is None:
        raise RevEditError("toolhost rewrites only a plain, single- or double-quoted rev on "
                           "the same line as its key", start + 1)
    form, value = found
    want = copy.deepcopy(expected)
    want["extends"][index]["rev"] = new
    for written in _spellings(form, new):
        candidate = "\n".join([*lines[:line - 1],
                               row[:value.start()] + written + row[value.end():],
                               *lines[line:]])
        if parse(candidate) == want:
            return candidate, want
    raise RevEditError(f"written here, {new!r} would not read back as this rev alone (is the "
                       "value shared through an anchor?)", start + 1)


def _spellings(form: str, new: str) -> list[str]:
    """How to write ``new`` in place of a value of ``form``, the closest first."""
    double = '"' + new.replace("\\", "\\\\").replace('"', '\\"') + '"'
    out = []
    if form == "plain" and _PLAIN_SAFE.fullmatch(new):
        out.append(new)  # still checked: YAML would read a plain 1.10 as a number
    if form == "single" and "'" not in new:
        out.append(f"'{new}'")
    return [*out, double]
