"""Secrets in hex dumps: hex spaced by bytes or groups, as ``od -tx1``, ``xxd``,
``hexdump -C`` and ``xxd -i`` write it (``68 65``, ``6865 6c6c``, ``68:65``, ``0x68, 0x65``),
its lines wrapped, each line with its offset first and the dump's ASCII column last.

The ``Matcher``'s one RE2 pass finds where the hex of a secret's first ``_TRIGGER`` bytes
starts, each pair of digits followed by a separator: none, one or two spaces or colons,
``0x`` or ``\\x``, or the end of a line (a line break, raw or JSON-escaped, after at most
``_TAIL`` characters: the ASCII column) and the offset that starts the next. The secret is
then followed byte by byte from there (``longest``). What is hidden runs from the first digit
of the secret's hex to its last (an ASCII column inside that run goes with it), and, when it
wraps, on to the end of the secret's characters in the ASCII column of its last line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["MIN_BYTES", "SpacedHex"]

MIN_BYTES = 4  # shorter secrets' spaced hex (``31 32 33``) is in every dump of anything
_PREFIX = 16  # bytes of a longer secret that are hidden even when the rest differs
_TRIGGER = 3  # bytes of a secret in the RE2 pattern (its size stays bounded)
_LINE = 256  # the longest rest of a dump's line looked at for its ASCII column
_TAIL = 22  # an ASCII column (`  |0123456789abcdef|`) and what pads it
_BREAK = r"(?:\r?\n|\\r\\n|\\n)"
_INLINE = r"[ :]{0,2}|\\x|,? ?0[xX]"
_WRAP = rf"[^\n]{{0,{_TAIL}}}?{_BREAK}(?:[0-9A-Fa-f]{{4,16}}:?)?[ ]{{0,4}}(?:0[xX])?"
_SEP = f"(?:{_INLINE}|{_WRAP})"
_SEPS = tuple(re.compile(p) for p in (*_INLINE.split("|"), _WRAP))


def _digit(c: str) -> str:
    return f"[{c}{c.upper()}]" if c.isalpha() else c


def _pair(byte: int) -> str:
    return "".join(_digit(c) for c in f"{byte:02x}")


class SpacedHex:
    """Finds the secrets' bytes in a hex dump (see the module's text), for the ``Matcher``:
    its RE2 pass finds the ``triggers``, and ``longest`` follows a secret from there."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._raw = sorted({b for s in secrets
                            if len(b := s.encode("utf-8", "surrogatepass")) >= MIN_BYTES},
                           key=len, reverse=True)

    def triggers(self) -> set[str]:
        """RE2 patterns of the spaced hex of each secret's first ``_TRIGGER`` bytes."""
        return {_pair(raw[0]) + _SEP + _SEP.join(_pair(b) for b in raw[1:_TRIGGER])
                for raw in self._raw}

    def longest(self, text: str, at: int) -> int:
        """Where the longest secret whose spaced hex starts at ``at`` ends (``at`` if none):
        wrapped, the end of the secret's bytes in the ASCII column of its last line (a
        dump shows them there too) when that is further."""
        if not text[at:at + 2].isalnum():
            return at
        end = at
        for raw in self._raw:
            stop, after, found = self._follow(text, at, raw)
            if after:
                stop = max(stop, _column(text, stop, found[len(found) - after:]))
            end = max(end, stop)
        return end

    @staticmethod
    def _follow(text: str, at: int, raw: bytes) -> tuple[int, int, bytes]:
        """Where the spaced hex of ``raw`` starting at ``at`` ends (0 if it is not there, or
        less than ``_PREFIX`` bytes of it), how many bytes of it follow its last line break,
        and ``raw``."""
        after, wrapped = 0, False
        for i, byte in enumerate(raw):
            pair = f"{byte:02x}"
            if i:
                found = next(((n, end) for n, sep in enumerate(_SEPS)
                              if (m := sep.match(text, at)) is not None
                              and text[(end := m.end()):end + 2].lower() == pair), None)
                if found is None:  # the secret's hex ends early: its first _PREFIX bytes count
                    return ((at, after if wrapped else 0, raw[:i])
                            if i >= min(_PREFIX, len(raw)) else (0, 0, b""))
                if found[0] == len(_SEPS) - 1:  # a line break, and the next line's offset
                    after, wrapped = 0, True
                at = found[1]
            elif text[at:at + 2].lower() != pair:
                return 0, 0, b""
            after += 1
            at += 2
        return at, after if wrapped else 0, raw


def _column(text: str, at: int, tail: bytes) -> int:
    """Where the end of a secret shown in the ASCII column of the line ``at`` is on ends
    (``tail``, as a dump shows bytes: printable ASCII as itself, any other as ``.``); 0 if
    it is not there."""
    shown = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in tail)
    limit = min(len(text), at + _LINE)  # a dump's line is short: the look stays bounded
    stop = min((i for i in (text.find("\n", at, limit), text.find("\\n", at, limit))
                if i >= 0), default=limit)
    found = text.find(shown, at, stop)
    return found + len(shown) if found >= 0 else 0


