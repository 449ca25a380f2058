"""Secrets in hex dumps: hex spaced by bytes or groups, as ``od -tx1``, ``xxd``,
``hexdump -C`` and ``xxd -i`` write it, or in 16- or 32-bit little-endian words
(``od -x``, ``hexdump``, ``xxd -e``, ``od -tx4``) (``68 65``, ``6865 6c6c``,
``68:65``, ``0x68, 0x65``), its lines wrapped, each line with its offset first and the
dump's ASCII column last.

The ``Matcher``'s one RE2 pass finds where the hex of a secret's first ``_TRIGGER`` bytes
starts, each pair of digits followed by a separator: none, one or two spaces or colons,
``0x`` or ``\\x``, or the end of a line (a line break, raw or JSON-escaped, after at most
``_TAIL`` characters: the ASCII column) and the offset that starts the next. The secret is
then followed byte by byte from there (``longest``). What is hidden runs from the first digit
of the secret's hex to its last (an ASCII column inside that run goes with it), and, when it
wraps, on to the end of the secret's characters in the ASCII column of its last line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

__all__ = ["MIN_BYTES", "OPEN_MAX", "SpacedHex"]

MIN_BYTES = 4  # shorter secrets' spaced hex (``31 32 33``) is in every dump of anything
_PREFIX = 16  # bytes of a longer secret that are hidden even when the rest differs
_TRIGGER = 3  # bytes of a secret in the RE2 pattern (its size stays bounded)
_LINE = 256  # the longest rest of a dump's line looked at for its ASCII column
_TAIL = 22  # an ASCII column (`  |0123456789abcdef|`) and what pads it
_BREAK = r"(?:\r?\n|\\r\\n|\\n)"
_INLINE = r"[ :]{0,2}|\\x|,? ?0[xX]|['\"], ?['\"]0[xX]"  # the last: Python's [hex(b) ...]
_WRAP = rf"[^\n]{{0,{_TAIL}}}?{_BREAK}(?:[0-9A-Fa-f]{{4,16}}:?)?[ ]{{0,4}}(?:0[xX])?"
_SEP = f"(?:{_INLINE}|{_WRAP})"
_SEPS = tuple(re.compile(p) for p in (*_INLINE.split("|"), _WRAP))
# What may follow the last whole pair of a secret's hex at the end of a text cut there (or a
# stream's piece): any start of a separator and of the next pair's first digit.
_OPEN = re.compile(
    rf"(?:[ :]{{0,2}}|\\x?|,? ?(?:0[xX]?)?|(?:[ ]{{2,48}}[^\n]{{0,{_TAIL}}}|,? ?)"
    rf"(?:\r|\\r?\\?|\\r\\|"
    rf"{_BREAK}(?:[0-9A-Fa-f]{{0,16}}:?)?[ ]{{0,4}}(?:0[xX]?)?)?)[0-9A-Fa-f]?")
# a dump's line up to one of its bytes: its offset, then bytes and their separators
_DUMP_LINE = re.compile(r"\r?[ \t]*(?:[0-9A-Fa-f]{4,16}:?[ ]{1,4})?"
                        r"(?:(?:0[xX]|\\x)?[0-9A-Fa-f]{2}(?:[ :]{0,2}|,[ ]?))*(?:0[xX]|\\x)?")
_DUMP_PART = re.compile(r"[0-9A-Fa-fxX:, \t\\]*")
# What a text cut inside a dump may start with before the first whole pair it shows: the
# rest of a pair, of an offset, of a separator (``0x``, ``\x``, ``, ``)
_HEAD = re.compile(r"(?:\\?n)?[ \t]*[0-9A-Fa-f]{0,16}:?[ ]{0,4}(?:,[ ]?)?(?:0[xX]|[xX]|\\x)?")
_BEFORE_COLUMN = re.compile(r"[0-9A-Fa-fxX:, \t\\]*\|?")
_HEAD_MAX = 32
_TRIES = 3  # rests of one secret (that match 16 bytes or more) followed from one place
_AFTER = frozenset(" \t:,xXn")  # the longest such start looked at
_NEXT_LINE = re.compile(rf"{_BREAK}[ \t]*(?:[0-9A-Fa-f]{{4,16}}:?)?[ ]{{0,4}}(?:0[xX]|\\x)?")
OPEN_MAX = 1024  # how far from a text's end the start of an open dump is looked for


def _digit(c: str) -> str:
    return f"[{c}{c.upper()}]" if c.isalpha() else c


def _swapped(raw: bytes, size: int = 2) -> bytes:
    """``raw``'s bytes reversed in words of ``size`` (a last part word left out)."""
    return b"".join(raw[i:i + size][::-1] for i in range(0, len(raw) - size + 1, size))


def _cases(pair: str) -> set[str]:
    return {a + b for a in {pair[0], pair[0].upper()} for b in {pair[1], pair[1].upper()}}


def _pair(byte: int) -> str:
    return "".join(_digit(c) for c in f"{byte:02x}")


class SpacedHex:
    """Finds the secrets' bytes in a hex dump (see the module's text), for the ``Matcher``:
    its RE2 pass finds the ``triggers``, and ``longest`` follows a secret from there."""

    def __init__(self, secrets: Iterable[str]) -> None:
        raws = {s.encode("utf-8", "surrogatepass") for s in secrets}
        # and UTF-16LE, bytes in order only (``iconv -t UTF-16 | xxd``, a Windows program's
        # output in a dump); its words are not looked for (each build would cost a third more)
        wide = {s.encode("utf-16-le", "surrogatepass") for s in secrets}
        self._raws = frozenset(raws | wide)
        # od -x and hexdump without -C write 16-bit little-endian words: a secret starting
        # at an even offset shows its bytes swapped in pairs; at an odd one, the same from
        # its second byte on (its first shares a word with the byte before it)
        # (xxd -e, od -tx4: 32-bit words). Each such form maps to
        # the secret's bytes from where it starts: what the dump's ASCII column shows
        self._words: dict[bytes, bytes] = {}
        for raw in raws:
            for size in (2, 4):
                for start in range(size):
                    self._words.setdefault(_swapped(raw[start:], size), raw[start:])
        self._raw = sorted({b for b in raws | wide | set(self._words) if len(b) >= MIN_BYTES},
                           key=len, reverse=True)
        # where a secret's hex may start: its first pair in either case (anywhere: a dump
        # groups bytes), looked for with str.find (at memchr speed, unlike a regex)
        # what an ASCII column shows of each secret (for a cut that left only that of it)
        shown = {_shown(raw) for raw in raws | wide if len(raw) >= MIN_BYTES}
        self._columns = sorted(shown | {json.dumps(s)[1:-1] for s in shown},
                               key=len, reverse=True)
        self._firsts = sorted({v for raw in self._raw for v in _cases(f"{raw[0]:02x}")})
        # the secrets by their first byte's hex: ``longest`` runs at every place a candidate
        # covers, and follows only those that can start there (all of them, at each of a
        # near-miss's places, cost ~30 s per MB)
        self._by_pair: dict[str, list[bytes]] = {}
        for raw in self._raw:
            self._by_pair.setdefault(f"{raw[0]:02x}", []).append(raw)

    def triggers(self) -> set[str]:
        """RE2 patterns of the spaced hex of each secret's first ``_TRIGGER`` bytes."""
        return {_pair(raw[0]) + _SEP + _SEP.join(_pair(b) for b in raw[1:_TRIGGER])
                for raw in self._raw}

    def longest(self, text: str, at: int) -> int:
        """Where the longest secret whose spaced hex starts at ``at`` ends (``at`` if none):
        the end of the secret's bytes in the ASCII column of its last line (a dump shows
        them there too) when that is further."""
        end = at
        for raw in self._by_pair.get(text[at:at + 2].lower(), ()):
            stop, after, found = self._follow(text, at, raw)
            if after:
                stop = max(stop, _column(text, stop, found[len(found) - after:]))
                if raw in self._words and raw not in self._raws:  # the column shows the
                    # secret's bytes in their order, and a last part word the hex left out
                    shown = self._words[raw][len(found) - after:]
                    stop = max(stop, _column(text, stop, shown),
                               _column(text, stop, shown[:after]))
                    rest = self._words[raw][len(found):]  # a last part word, on the next line
                    if rest and len(found) == len(raw):
                        stop = max(stop, _next_word(text, stop, rest))
            end = max(end, stop)
        return end

    def open_tail(self, text: str, least: int = 1) -> int:
        """The length of the longest end of ``text`` that starts the spaced hex of a
        secret (``least`` of its bytes or more) and runs to the end of ``text`` without all
        of it: what a cut there would show of the secret, or what the next piece of a
        stream could still make one. 0 if none."""
        begin = max(len(text) - OPEN_MAX, 0)
        starts: set[int] = set()
        for first in self._firsts:
            at = text.find(first, begin)
            while at >= 0:
                starts.add(at)
                at = text.find(first, at + 1)
        for at in sorted(starts):  # leftmost first: the longest end
            if not _in_dump_line(text, at):
                continue
            for raw in self._raw:
                if self._open(text, at, raw, least):
                    return len(text) - at
        return 0

    def open_head(self, text: str, least: int = 2) -> int:
        """The length of the longest start of ``text`` that ends the spaced hex of a secret
        (``least`` of its last bytes or more; its first bytes cut off), with the secret's
        characters in its line's ASCII column: what a text cut there (the last part of a
        long output) shows of the secret. 0 if none. Bounded: only the text's first line and
        the start of its second are tried (a cut inside an ASCII column)."""
        limit = min(len(text), _HEAD_MAX)
        # a pair starts the text, follows the rest of one, or follows a separator
        places = [p for p in range(limit) if (p < 2 or text[p - 1] in _AFTER)
                  and _HEAD.fullmatch(text, 0, p)]
        lead = text[:min(len(text), _LINE)]
        ends = [i for i in (lead.find("\n"), lead.find("\\n")) if i >= 0]
        if ends and (m := _NEXT_LINE.match(text, min(ends))) is not None:
            places.append(m.end())  # the cut fell in the first line's column (or its end)
        best = 0
        for p in places:
            pair = text[p:p + 2].lower()
            if len(pair) < 2 or not all(c in "0123456789abcdef" for c in pair):
                continue
            for raw in self._raw:
                hexed = raw.hex()
                j, tries = hexed.find(pair, 2), _TRIES
                while 0 <= j <= 2 * (len(raw) - least) and tries:  # the longest rest first
                    if not j % 2:
                        rest = raw[j // 2:]
                        stop, after, found = self._follow(text, p, rest)
                        if found:
                            best = max(best, stop, _column(text, stop, found[len(found) - after:]))
                            # a shorter rest ends no further; a repeating secret matches at
                            # many places of itself: a few of its longest rests are enough
                            tries = 0 if len(found) == len(rest) else tries - 1
                    j = hexed.find(pair, j + 1)
        # the column of the first line may show more of the secret than its bytes (all of
        # the line's part of it, when the cut left fewer than ``least`` of its bytes)
        return max(best, _column_head(text, self._columns))

    @staticmethod
    def _open(text: str, at: int, raw: bytes, least: int) -> bool:
        """Whether the spaced hex of ``raw`` starts at ``at`` and the text ends inside it
        (after ``least`` whole bytes or more)."""
        for i, byte in enumerate(raw):
            pair = f"{byte:02x}"
            if i:
                found = next((end for sep in _SEPS if (m := sep.match(text, at)) is not None
                              and text[(end := m.end()):end + 2].lower() == pair), None)
                if found is None:  # a match (its column may follow), or the text's end
                    if i >= min(_PREFIX, len(raw)):
                        return _ends_open(text, at)
                    return i >= least and _OPEN.fullmatch(text, at) is not None
                at = found
            elif text[at:at + 2].lower() != pair:
                return False
            at += 2
        return _ends_open(text, at)  # all of it, but the line (its ASCII column) goes on

    @staticmethod
    def _follow(text: str, at: int, raw: bytes) -> tuple[int, int, bytes]:
        """Where the spaced hex of ``raw`` starting at ``at`` ends (0 if it is not there, or
        less than ``_PREFIX`` bytes of it), how many bytes of it are on its last line, and
        the bytes of ``raw`` found."""
        after = 0
        for i, byte in enumerate(raw):
            pair = f"{byte:02x}"
            if i:
                found = next(((n, end) for n, sep in enumerate(_SEPS)
                              if (m := sep.match(text, at)) is not None
                              and text[(end := m.end()):end + 2].lower() == pair), None)
                if found is None:  # the secret's hex ends early: its first _PREFIX bytes count
                    return ((at, after, raw[:i])
                            if i >= min(_PREFIX, len(raw)) else (0, 0, b""))
                if found[0] == len(_SEPS) - 1:  # a line break, and the next line's offset
                    after = 0
                at = found[1]
            elif text[at:at + 2].lower() != pair:
                return 0, 0, b""
            after += 1
            at += 2
        return at, after, raw


def _next_word(text: str, at: int, rest: bytes) -> int:
    """Where the last part word of a secret in little-endian words (``rest``, its bytes in
    their order), on the line after ``at``, ends with its characters in that line's column
    (``0000000a31323933  3921.``); 0 if it is not there."""
    limit = min(len(text), at + _LINE)
    swapped = rest[::-1].hex()
    word = max(text.find(swapped, at, limit), text.find(swapped.upper(), at, limit))
    return _column(text, word + len(swapped), rest) if word >= 0 else 0


def _in_dump_line(text: str, at: int) -> bool:
    """Whether the line ``at`` is on holds only a dump's offset and bytes before it (so a
    stream's line such as ``took 73 ms`` is not held back for its ``73``)."""
    least = max(at - _LINE, 0)
    raw, escaped = text.rfind("\n", least, at), text.rfind("\\n", least, at)
    begin = max(raw + 1 if raw >= 0 else least, escaped + 2 if escaped >= 0 else least)
    if begin == 0:  # a stream's piece may start inside a line: any part of one
        return _DUMP_PART.fullmatch(text, 0, at) is not None
    return _DUMP_LINE.fullmatch(text, begin, at) is not None


def _ends_open(text: str, at: int) -> bool:
    """Whether ``text`` from ``at`` (after a secret's last pair in a dump) may be continued
    into more of it, or into its line's ASCII column: the text ends in a separator, or
    before the end of that line."""
    if len(text) - at <= _LINE and "\n" not in text[at:] and "\\n" not in text[at:]:
        return True
    return _OPEN.fullmatch(text, at) is not None


def _shown(raw: bytes) -> str:
    """``raw`` as a dump's ASCII column shows it: printable ASCII as itself, any other ``.``."""
    return "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in raw)


def _column_head(text: str, columns: list[str]) -> int:
    """Where a piece of a secret shown in the ASCII column of ``text``'s first line ends
    (3 characters of it or more, only bytes and separators before it on that line: the cut
    left that line's column, which shows the secret's characters); 0 if none."""
    lead = text[:min(len(text), _LINE)]
    stop = min((i for i in (lead.find("\n"), lead.find("\\n")) if i >= 0), default=len(lead))
    end = 0
    for shown in columns:
        q = 0
        while q < stop - 2:
            if lead[q:q + 3] in shown and _BEFORE_COLUMN.fullmatch(text, 0, q):
                e = q + 3
                while e < stop and lead[q:e + 1] in shown:
                    e += 1
                end, q = max(end, e), e
            else:
                q += 1
    return end


def _column(text: str, at: int, tail: bytes) -> int:
    """Where the end of a secret shown in the ASCII column of the line ``at`` is on ends
    (``tail``, as a dump shows bytes: printable ASCII as itself, any other as ``.``); 0 if
    it is not there."""
    shown = _shown(tail)
    limit = min(len(text), at + _LINE)  # a dump's line is short: the look stays bounded
    stop = min((i for i in (text.find("\n", at, limit), text.find("\\n", at, limit))
                if i >= 0), default=limit)
    found = text.find(shown, at, stop)
    if found < 0 and ('"' in shown or "\\" in shown):  # the column in a JSON string
        shown = json.dumps(shown)[1:-1]
        found = text.find(shown, at, stop)
    if found >= 0:
        return found + len(shown)
    if stop == len(text):  # the text was cut in the column: the start of what it shows
        for k in range(min(len(shown) - 1, stop - at), 0, -1):
            if text.endswith(shown[:k]):
                return stop
    return 0


