"""Runs of blank and comment lines taken out of a big TOML text before ``tomllib`` reads it.

``tomllib`` walks a comment line in Python, ~0.5 us each: 16 MiB of ``#`` lines took it ~4 s.
It skips such a line wherever it may stand (between statements, inside a
multi-line array) and refuses one where it may not stand at the newline before it, which is
kept, so taking the lines out changes neither the data nor the first error; only the error's
line number, which ``Squeezed.line`` gives back. A text of fewer lines is read as it is.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

__all__ = ["SQUEEZE_LINES", "Squeezed", "squeeze"]

SQUEEZE_LINES = 50_000  # a text with fewer line breaks is left as it is (every honest config)

_RUN = 4  # fewer blank or comment lines together are left (a match each costs Python time)
# a comment tomllib accepts: no control character but tab (a comment holding one is left in
# place, so tomllib still refuses it where it is)
_LINE = r"[ \t]*+(?:#[^\x00-\x08\x0a-\x1f\x7f]*+)?\r?\n"
# text that is no run, in possessive pieces that never give back (linear): anything but a
# quote, a comment or a line break; a whole string (as limits.toml_prescan skips it); a
# comment; a line break not followed by ``_RUN`` blank or comment lines. Then a line break
# and the run of blank or comment lines after it (group 1), a lone line break, or the end.
_RUNS = re.compile(
    r"(?:[^\"'#\n]++"
    r"|'''(?:[^']++|'(?!''))*+(?:''')?"
    r"|'[^'\n]*+(?s:.)?"
    r'|"""(?:[^"\\]++|\\(?s:.)|"(?!""))*+(?:""")?'
    r'|"(?:[^"\\\n]++|\\(?s:.))*+(?s:.)?'
    r"|#[^\n]*+"
    rf"|\n(?!(?:{_LINE}){{{_RUN}}}))*+"
    rf"(?:\n((?:{_LINE})++)|\n|\Z)")


@dataclass
class Squeezed:
    """The text ``tomllib`` reads, and where lines were taken out of it."""

    text: str
    at: list[int] = field(default_factory=list)  # the line (of ``text``) after each run
    before: list[int] = field(default_factory=list)  # lines taken out up to that run, in all

    def line(self, line: int) -> int:
        """The line of the original text that ``text``'s ``line`` is."""
        i = bisect.bisect_right(self.at, line)
        return line + (self.before[i - 1] if i else 0)


def squeeze(text: str) -> Squeezed:
    """``text`` without its runs of blank and comment lines (outside strings), when it has
    at least ``SQUEEZE_LINES`` line breaks; else ``text`` itself."""
    if text.count("\n") < SQUEEZE_LINES:
        return Squeezed(text)
    out = Squeezed("")
    pieces: list[str] = []
    kept = 0  # offset in text up to which pieces hold it
    line = 1  # line of the squeezed text at ``kept``
    removed = 0
    for found in _RUNS.finditer(text):
        if found[1] is None:
            if found.end() >= len(text):
                break
            continue
        start, end = found.start(1), found.end(1)
        pieces.append(text[kept:start])
        line += text.count("\n", kept, start)
        lines = text.count("\n", start, end)
        if text.find("'", start, end) >= 0:
            # an unclosed 'string' before is refused at its line break if a quote follows
            # anywhere (tomllib looks ahead for it), else at the end: one is kept
            pieces.append("#'\n")
            line, lines = line + 1, lines - 1
        removed += lines
        kept = end
        out.at.append(line)
        out.before.append(removed)
    if not pieces:
        return Squeezed(text)
    pieces.append(text[kept:])
    out.text = "".join(pieces)
    return out
