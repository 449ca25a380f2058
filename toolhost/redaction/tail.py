"""Where a text cut anywhere may end inside a secret spelled in any way (the stream's hold-back).

``Redactor.stream_split`` shows a stream's text as it comes and holds back the end that more
text could turn into a secret. The literal forms (``redaction.forms``) find that end for a
secret written in one spelling; a secret spelled character by character in a mix (``\\u0053``
then plain letters, ``&#83;uperSec``, ``...XY\\u00`` or ``...XY&#``: every spelling the
redactor hides, ``redaction.spell``) is found here. From each place the text could start a
view of a secret, its characters are followed one spelling after another (every way each may
be spelled, so an optional ``;`` or a run of backslashes is no guess); the end is open when
the text ends inside a character's spelling or between two of them. A whole view at the end
counts too: more text may still make the match longer (``&#90`` then ``;``).

Each character's two regexes (its spellings; every start of one) are compiled once per
process and shared by every secret holding that character, so nothing is built per config.

Bounded: a character spelled over more than ``SPAN`` characters (padding: backslashes, leading
zeros) counts as open, and a held end longer than ``MAX_HOLD`` is masked rather than held
(``Redactor.stream_split``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from toolhost.redaction.spell import FOLD_MIN, LONG, _encodable, _group, spellings
from toolhost.redaction.spell import views as _views

__all__ = ["MAX_HOLD", "SPAN", "SpelledTails"]

MAX_HOLD = 8192  # characters a stream holds back at most
SPAN = 256  # characters one spelled character is followed over at most


@functools.lru_cache(maxsize=1024)
def _char(char: str, fold: bool) -> tuple[re.Pattern[str], re.Pattern[str], frozenset[str]]:
    """``char``'s spellings, every start of one (the whole too), and their first characters."""
    spelled = spellings(_encodable(char), fold, False)
    return (re.compile(_group((first, rest) for first, rest, _ in spelled)),
            re.compile("(?:" + "|".join(re.escape(first) + start
                                        for first, _, start in spelled) + ")"),
            frozenset(first for first, _, _ in spelled))


Char = tuple[re.Pattern[str], re.Pattern[str], frozenset[str]]


def _open_from(text: str, at: int, chars: list[Char]) -> bool:
    """Whether ``text[at:]`` is the start of a spelling of the view ``chars`` (or all of it)."""
    size = len(text)
    places = {at}
    for full, start, _ in chars:
        after: set[int] = set()
        for p in places:
            if p == size or start.fullmatch(text, p):
                return True  # the text ends between two characters, or inside this one
            ends = _ends(full, start, text, p)
            if ends is None:
                return True  # too long to follow: held (and masked past MAX_HOLD)
            after.update(ends)
        if not after:
            return False
        places = after
    return size in places


def _ends(full: re.Pattern[str], start: re.Pattern[str], text: str,
          p: int) -> list[int] | None:
    """Every end of a whole spelling of one character at ``p`` (None: past ``SPAN``)."""
    if not start.fullmatch(text, p, p + 1):
        return []
    lo, hi = p + 1, min(len(text), p + SPAN)  # the starts of a spelling: p+1 .. the furthest
    if start.fullmatch(text, p, hi):
        if hi < len(text):
            return None
        lo = hi
    while lo < hi:  # every start of a start is a start: the furthest one, by halves
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if start.fullmatch(text, p, mid) else (lo, mid - 1)
    return [e for e in range(p + 1, lo + 1) if full.fullmatch(text, p, e)]


class SpelledTails:
    """The views of a set of secrets; ``open_tail(text)`` is how many characters at the end
    of ``text`` are the start of a spelling of one (0: none)."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self._views = sorted({v for s in secrets if s for v in _views(s) if 0 < len(v) < LONG},
                             key=len, reverse=True)
        self._chars: list[list[Char]] | None = None  # per view, on first use

    def open_tail(self, text: str) -> int:
        """The length of the longest end of ``text`` that is the start of a spelling."""
        if self._chars is None:
            self._chars = [[_char(c, len(v) >= FOLD_MIN) for c in v] for v in self._views]
        size = len(text)
        best = 0
        for chars in self._chars:
            firsts = chars[0][2]
            for at in range(max(0, size - MAX_HOLD - 1), size - best):
                # inside a run of backslashes only its first is tried: a spelling starting
                # later in the run starts at its start as well (one escape, more backslashes)
                if text[at] in firsts and not (at and text[at] == "\\" == text[at - 1]) \
                        and _open_from(text, at, chars):
                    best = size - at
                    break
        return best
