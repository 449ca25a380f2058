"""Secrets folded at a fixed width: ``fold -w N`` of the raw secret, ``base64 -w 8``,
``xxd -p -c 4``, ``od -An -tx1 -w1``, one character per line. Each line but the last of such
a block has one width, of any size (a block narrower than ``redaction.wrapped``'s 16 or 20
columns, or of lines holding blanks, was read only line by line, and each line showed its
part of the secret).

A block is two lines or more of one width, then maybe a shorter one (line breaks ``\\n`` or
``\\r\\n``), or a line of at most 24 characters and a shorter one. It is read joined (its
line breaks taken out), the secret's forms are looked for there, and what is found is mapped
back to the block's characters (the breaks inside hidden too). Texts whose consecutive lines
differ in width (prose, logs) cost one split and a look at the line widths.
"""

from __future__ import annotations

import bisect
import itertools
import operator
from collections.abc import Callable, Iterable, Iterator

__all__ = ["folded_spans"]

Spans = Callable[[str], Iterable[tuple[int, int]]]
_NARROW = 24  # a block of a line and a shorter one is read when its width is at most this


def folded_spans(text: str, spans: Spans) -> Iterator[tuple[int, int]]:
    """Where ``spans`` finds a secret in a block of ``text`` folded at a fixed width, as
    spans of ``text`` (from the secret's first character to its last)."""
    if text.count("\n") < 2:
        return
    lines = text.split("\n")
    sizes = list(map(len, lines))  # with a \r before the break, if any
    crlf = "\r" in text
    widths = [n - line.endswith("\r") for n, line in zip(sizes, lines, strict=True)] \
        if crlf else sizes
    # where a block may start: a line as wide as the next, or a narrow one and a shorter one
    # (prose is mostly a line and a shorter one: reading each such pair would cost a second
    # pass over it); found at C speed, as the usual text has few
    nexts = widths[1:]
    marks = sorted({*itertools.compress(range(len(nexts)), map(operator.eq, widths, nexts)),
                    *itertools.compress(range(len(nexts)), map(
                        operator.and_, map(operator.and_, map(operator.gt, widths, nexts),
                                           map(_NARROW.__ge__, widths)),
                        map(bool, nexts)))})
    if not marks:
        return
    before = list(itertools.accumulate(sizes, initial=0))  # line i starts at before[i] + i
    k = 0
    while k < len(marks):
        i = marks[k]
        width = widths[i]
        # past the lines of this width, then a shorter last line
        # (not islice(nexts, i, ...): it walks the first i lines again, for every block)
        j = i + 1
        while j < len(widths) and widths[j] == width:
            j += 1
        end = j + 1 if j < len(lines) and 0 < widths[j] < width else j
        k = bisect.bisect_left(marks, j, k + 1)
        if width == 0:
            continue
        step = sizes[i] + 1  # from one line's start to the next one's
        at = before[i] + i
        block = text[at:before[end - 1] + end - 1 + widths[end - 1]]
        joined = block.replace("\r\n", "").replace("\n", "") if crlf else \
            block.replace("\n", "")
        for first, stop in spans(joined):
            yield (at + first // width * step + first % width,
                   at + (stop - 1) // width * step + (stop - 1) % width + 1)
