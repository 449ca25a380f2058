"""Secrets in encodings that tools break up: base64 or hex wrapped over several lines
(``base64`` wraps at 76 columns, ``openssl base64`` and PEM at 64, ``xxd -p`` at 60), the line
breaks raw, ``\\r\\n`` or JSON-escaped (``\\n``). (Hex spaced by bytes, as ``od``, ``xxd`` and
``hexdump -C`` write it, is ``toolhost.redaction.hexdump``'s.)

Each such block is read joined (its separators taken out), the secret's forms are looked for
in the joined text, and what is found is mapped back to the characters of the block it was
made of: those are hidden, the line breaks between them included.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from toolhost.redaction.spell import _encodable

__all__ = ["line_held", "merged", "ragged_spans", "soft_spans", "wrapped_edge",
           "wrapped_hold", "wrapped_spans"]

_SEP = r"(?:\r?\n|\\r\\n|\\n)"
# two lines or more of base64 (or hex, its subset), the first of at least 16 characters (the
# narrowest wrap of a common tool is xxd's 60); a backslash is never part of a line, so
# an escaped line break cannot be read as its letters
_LINES = rf"[A-Za-z0-9+/_-]{{16,}}={{0,2}}(?:{_SEP}[A-Za-z0-9+/_-]+={{0,2}})+"

# A cheap look first (most texts have neither), by patterns that start with a literal (the
# engine skips to it): RE2 runs only on a text with a long base64 line ending in a line
# break.
# (The needle is one character: ``in`` finds one at memchr speed, a longer one can be slower
# than the look itself.)
_LOOKS = (("\n", re.compile(r"\n(?<=[A-Za-z0-9+/=_-]{16}\n)")),
          ("\r", re.compile(r"\r\n(?<=[A-Za-z0-9+/=_-]{16}\r\n)")),
          ("\\", re.compile(r"\\n(?<=[A-Za-z0-9+/=_-]{16}\\n)")),
          ("\\", re.compile(r"\\r\\n(?<=[A-Za-z0-9+/=_-]{16}\\r\\n)")))


@functools.cache
def _scanner() -> Any:
    """The block pattern, in RE2: linear in the text, as every redaction pass is."""
    import re2  # type: ignore[import-untyped]  # loaded with the first secret anyway

    options = re2.Options()
    options.never_capture = True
    options.log_errors = False
    return re2.compile(_LINES, options)


Spans = Callable[[str], Iterable[tuple[int, int]]]


def _pieces(block: str) -> tuple[str, list[int], list[int]]:
    """The block joined, and for each of its lines where it starts in the joined text and
    in the block. (Its separators are ``\n``, ``\r\n`` and their escapes: a ``\r`` or a
    backslash is never part of a line. Split with ``str`` methods: a regex split costs ten
    times more.)"""
    if "\r" not in block and "\\" not in block:  # the usual case: only \n
        lines = block.split("\n")
        lengths = list(map(len, lines))
        return ("".join(lines), list(itertools.accumulate(lengths[:-1], initial=0)),
                list(itertools.accumulate((n + 1 for n in lengths[:-1]), initial=0)))
    lines = []
    block_at: list[int] = []
    pos = 0
    raws = block.split("\n")
    for r, raw in enumerate(raws):
        subs = raw.split("\\n") if "\\" in raw else [raw]
        for k, sub in enumerate(subs):
            line = sub
            if k < len(subs) - 1 and line.endswith("\\r"):
                line = line[:-2]
            elif k == len(subs) - 1 and r < len(raws) - 1 and line.endswith("\r"):
                line = line[:-1]
            lines.append(line)
            block_at.append(pos)
            pos += len(sub) + (2 if k < len(subs) - 1 else 1)
    joined_at = list(itertools.accumulate((len(x) for x in lines[:-1]), initial=0))
    return "".join(lines), joined_at, block_at


def wrapped_spans(text: str, spans: Spans) -> Iterator[tuple[int, int]]:
    """Where ``spans`` finds a secret in a wrapped block of ``text``, as spans of ``text``
    (from the first character of the secret's encoding to its last)."""
    if not any(needle in text and look.search(text) for needle, look in _LOOKS):
        return
    probe = text
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate, which RE2 cannot take: U+FFFD there
            probe = _encodable(text)  # (same length, same places)
    for block in _scanner().finditer(probe):
        yield from _mapped(text[block.start():block.end()], block.start(), spans)


def ragged_spans(text: str, spans: Spans) -> Iterator[tuple[int, int]]:
    """``wrapped_spans`` for encodings whose lines hold any printable character: base85
    wrapped at a fixed width (``a85encode(wrapcol=...)``, PDF's ``<~...~>``, ``basenc
    --z85``) and uuencode (each line first a character giving its length, taken out before
    the lines are joined). A block is two lines or more of one width, 20 or more, the last
    one maybe shorter, of printable ASCII without a blank."""
    if "\n" not in text:
        return
    pos = 0
    for look in _RAGGED_LOOK.finditer(text):  # a line of 20 such characters or more ends
        if look.start() < pos:
            continue
        begin = text.rfind("\n", 0, look.start()) + 1
        if not _PRINTABLE.fullmatch(text, begin, look.start()):
            continue
        lines, at = [], begin
        while True:
            stop = text.find("\n", at)
            line = text[at:stop if stop >= 0 else len(text)]
            if not _PRINTABLE.fullmatch(line):
                break
            lines.append(line)
            if stop < 0:
                break
            at = stop + 1
        pos = at
        width = len(lines[0])
        count = next((n for n, line in enumerate(lines) if len(line) != width), len(lines))
        if count < len(lines) and len(lines[count]) < width:
            count += 1  # the last line, shorter
        lines = lines[:count]
        if len(lines) < 2:
            continue
        uu = all(len(line) == 1 + 4 * -(-(ord(line[0]) - 32) // 3) for line in lines)
        cut = 1 if uu else 0  # uuencode: each line's length character is not data
        joined = "".join(line[cut:] for line in lines)
        if not uu and _B64_LINE.fullmatch(joined):
            continue  # base64 or hex: ``wrapped_spans`` reads it
        step = width - cut  # each line's part of the joined text, the last one's maybe less
        for first, end in spans(joined):
            yield (_ragged_at(begin, first, step, cut),
                   _ragged_at(begin, end - 1, step, cut) + 1)


def soft_spans(text: str, spans: Spans) -> Iterator[tuple[int, int]]:
    """``wrapped_spans`` for soft line breaks, which a reader takes out: quoted-printable's
    ``=`` at a line's end (mail, ``quopri``) and ``sed -n l``'s ``\\``: the text is read with
    them taken out, and what is found there is mapped back (the breaks inside it hidden
    too)."""
    parts, joined_at, text_at, pos = [], [0], [0], 0
    for look in _SOFT.finditer(text):  # a line break after "=", "\\" or "=\r"
        end = look.end()
        start = end - 2 if text[end - 2] != "\r" else end - 3
        if start < 0 or text[start] not in "=\\" or (text[start] == "\\" and end - start == 3):
            continue  # a plain \r\n, or \\\r\n
        parts.append(text[pos:start])
        pos = end
        joined_at.append(joined_at[-1] + len(parts[-1]))
        text_at.append(pos)
    if not parts:
        return
    parts.append(text[pos:])
    joined = "".join(parts)

    def where(i: int) -> int:
        piece = bisect.bisect_right(joined_at, i) - 1
        return text_at[piece] + i - joined_at[piece]

    for first, end in spans(joined):
        yield where(first), where(end - 1) + 1


def _ragged_at(start: int, i: int, step: int, cut: int) -> int:
    """Where character ``i`` of a ragged block's joined text is in the text."""
    line, col = divmod(i, step)
    return start + line * (step + cut + 1) + cut + col


def wrapped_edge(text: str, longest: Callable[[str], int], *, at_end: bool,
                 spans: Spans | None = None) -> int:
    """How many characters at the end (``at_end``) or start of ``text`` to hide because a
    wrapped block is cut there: ``longest`` of the block's joined text (the length of the
    start, or end, of a secret's form it ends, or starts, with), mapped back to the block's
    characters, its line breaks included. 0 when no block touches that edge. (For a text cut
    at a byte cap: a capped ``base64`` output shows its lines, the first of which held the
    start of a secret's encoding.) At the start, a whole secret ``spans`` finds in the joined
    block is hidden too: the rest of a line a cut left may be shorter than a block's first
    line, so ``wrapped_spans`` does not read it with the block."""
    if "\n" not in text and "\\" not in text and "\r" not in text:
        return 0
    sep = 0  # a cut just after a line break: the line before it is the edge
    if at_end:
        sep = next((len(s) for s in _CUT_SEPARATORS if text.endswith(s)), 0)
        text = text[:len(text) - sep]
    probe = text if text.isascii() else _encodable(text)
    start = end = -1
    if at_end:
        for block in _scanner().finditer(probe):
            start, end = block.start(), block.end()
    elif (rest := _LINE_END.match(text)) is not None:  # the rest of a line the cut left,
        skip = rest.end()  # then the block (a partial line may be shorter than a block's)
        block = next(iter(_scanner().finditer(probe[skip:])), None)
        if block is not None and block.start() == 0:
            start, end = 0, skip + block.end()
    if start < 0 or (at_end and end != len(text)):
        k = longest(text[text.rfind("\n") + 1:]) if sep else 0  # one line, then the cut
        return k + sep if k else 0
    start = start if at_end else 0
    joined, joined_at, block_at = _pieces(text[start:end])
    k = longest(joined)
    if not at_end and spans is not None:
        k = max([k, *(stop for _, stop in spans(joined))])
    if not k:
        return 0
    i = len(joined) - k if at_end else k - 1
    line = bisect.bisect_right(joined_at, i) - 1
    at = start + block_at[line] + i - joined_at[line]
    return len(text) - at + sep if at_end else at + 1


def wrapped_hold(text: str, open_tail: Callable[[str], int]) -> int:
    """For a stream: how much of the end of ``text`` to hold back because a wrapped block
    ends there whose joined text ends with what could be the start of a secret's form
    (``open_tail`` of it): from the start of the line where that start is, so that with the
    lines still to come the block is read whole (a stream written a line at a time, as
    ``base64`` writes, showed each line of a secret's encoding). 0 for every other text."""
    sep = next((len(s) for s in _CUT_SEPARATORS if text.endswith(s)), 0)
    body = text[:len(text) - sep]
    escaped = body.rfind("\\n")
    last = body[max(body.rfind("\n") + 1, escaped + 2 if escaped >= 0 else 0):]
    if not last or not _B64_LINE.fullmatch(last):
        return 0  # the usual case: the text does not end with a line of base64 or hex
    start = len(body) - len(last) if len(last) >= 16 else -1  # a line that may start one
    if any(needle in body and look.search(body) for needle, look in _LOOKS):
        probe = body if body.isascii() else _encodable(body)
        for block in _scanner().finditer(probe):
            if block.end() == len(body):
                start = block.start()
    if start < 0:
        return 0
    joined, joined_at, block_at = _pieces(body[start:])
    k = open_tail(joined)
    if not k:
        return 0
    line = bisect.bisect_right(joined_at, len(joined) - k) - 1
    return len(text) - (start + block_at[line])


def line_held(text: str, tail: int) -> int:
    """``tail`` (the end of a stream's text held back), reaching back into its line, when that
    is base64 or hex, until its first line holds 16 characters: a block's first line is read
    only when it is 16 characters or more, so a held piece of one (a secret's encoding
    starting near its end) must not be shorter."""
    escaped = text.rfind("\\n")
    line = max(text.rfind("\n") + 1, escaped + 2 if escaped >= 0 else 0)
    if line < len(text) and _B64_LINE.fullmatch(text, line) and (
            len(text) - line >= 16 or _LOOKS[0][1].search(text, 0, line)):
        # a line of base64 or hex in progress: its last 16 characters wait for its end, so
        # that what is held is never a line too short to be read as a block's first
        tail = max(tail, min(len(text) - line, 16))
    if not tail:
        return 0
    cut = len(text) - tail
    ends = [at for at in (text.find("\n", cut), text.find("\\n", cut)) if at >= 0]
    short = 16 - ((min(ends) if ends else len(text)) - cut)  # its first line: 16 at least
    escaped = text.rfind("\\n", 0, cut)
    start = max(text.rfind("\n", 0, cut) + 1, escaped + 2 if escaped >= 0 else 0,
                cut - short)
    if short > 0 and start < cut and _B64_LINE.fullmatch(text, start, cut):
        return len(text) - start
    return tail


_B64_LINE = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
# a soft break's line break (starting with it: the engine skips to it at memchr speed; a
# two-character ``in`` costs 2.5 times as much on a non-ASCII text)
_SOFT = re.compile(r"\n(?<=[=\\\r]\n)")
_RAGGED_LOOK = re.compile(r"\n(?<=[!-~]{20}\n)[!-~]")
_PRINTABLE = re.compile(r"[!-~]+")
# what a cut may leave at the end of a wrapped block: a line break, or the start of one
_CUT_SEPARATORS = ("\r\n", "\n", "\r", "\\r\\n", "\\n", "\\r\\", "\\r", "\\")
# the end of a line a cut left before a block (the rest of a wrapped line), and its break
_LINE_END = re.compile(rf"[A-Za-z0-9+/_-]*={{0,2}}{_SEP}")


def _mapped(block: str, offset: int, spans: Spans) -> Iterator[tuple[int, int]]:
    """The spans of the joined ``block`` (at ``offset`` in the text), in the text."""
    joined, joined_at, block_at = _pieces(block)

    def where(i: int) -> int:  # joined index -> index in text
        line = bisect.bisect_right(joined_at, i) - 1
        return offset + block_at[line] + i - joined_at[line]

    for start, end in spans(joined):
        yield where(start), where(end - 1) + 1


def merged(found: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans sorted, the overlapping ones made one."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(found):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out
