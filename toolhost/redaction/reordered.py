"""A secret's pieces out of order, or each written backwards: ``5b4a3921 9f8e7d6c sk-live-``
(chunks in reverse order), ``9-evil-ks c6d7e8f9 1293a4b5`` (each chunk reversed, in order).
No fixed form holds them (any chunk size), and each piece is shorter than the 10 letters and
digits a piece of a secret is known by (``toolhost.redaction.squeezed``).

``Reordered.spans`` reads the words of a text (runs between blanks, quotes, commas and
brackets) that hold a digit and are, squeezed (``squeezed.squeeze``: punctuation out, lower
case), a part of 4 characters or more of a secret's squeezed text or of it reversed; from
each, the words next to it that are such parts too (a few separators between) join it. A
run of them that holds ``PIECE`` letters and digits or more, a letter among them, is hidden
whole (words in any order: fail closed, a reader can put them back in order).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from toolhost.redaction.spell import LONG
from toolhost.redaction.squeezed import MAX_BLANKS, MIN_SQUEEZED, PIECE, squeeze

__all__ = ["MIN_PART", "Reordered"]

MIN_PART = 4  # a word shorter than this is a part of too many secrets by chance
_STOP = r"\s,;:'\"|`\[\](){}<>"
_WORD = re.compile(rf"[^{_STOP}]+")
# a word with a digit, of a part's length: the only words a run starts from (prose has few)
_ANCHOR = re.compile(rf"\d[^{_STOP}]*")  # a word's first digit on (its start: ``_start``)
_STOPS = frozenset(" \t\n\r\f\v\x1c\x1d\x1e\x1f\x85\xa0,;:'\"|`[](){}<>")
_GAP = 4  # separators between two words of a run, at most
_MAX_WORDS = 64  # words of a run grown each way from the one it starts from (a bound)


class Reordered:
    """The squeezed texts of a set of secrets (and reversed), and ``spans`` of their parts
    out of order."""

    __slots__ = ("_wholes",)

    def __init__(self, secrets: Iterable[str]) -> None:
        wholes: list[str] = []
        for secret in secrets:
            whole = squeeze(secret)
            # as ``Squeezed``: a token or a passphrase, not a document
            if len(whole) >= MIN_SQUEEZED and len(secret) < LONG \
                    and sum(c.isspace() for c in secret) <= MAX_BLANKS \
                    and any(c.isdigit() for c in whole):
                wholes += [whole, whole[::-1]]
        self._wholes = tuple(wholes)

    def __bool__(self) -> bool:
        return bool(self._wholes)

    def _part(self, word: str) -> bool:
        part = squeeze(word)  # (a whole secret is no part: the other finders hide each)
        return len(part) >= MIN_PART and any(part in whole and part != whole
                                             for whole in self._wholes)

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Where runs of a secret's parts (out of order, or reversed) are in ``text``."""
        if not self._wholes:
            return
        done = 0  # the text up to here is in a run already
        for anchor in _ANCHOR.finditer(text):
            start, end = _start(text, anchor.start()), anchor.end()
            if start < done or not MIN_PART <= end - start <= LONG \
                    or not self._part(text[start:end]):
                continue
            run = [(start, end)]  # its words, left to right
            while len(run) < _MAX_WORDS:  # the words before, while each is a part
                gap = _gap_before(text, run[0][0])
                if gap is None:
                    break
                before = (_start(text, gap), gap)
                if before[0] == before[1] or not self._part(text[before[0]:before[1]]):
                    break
                run.insert(0, before)
            while len(run) < 2 * _MAX_WORDS:  # and the words after
                after = _WORD.match(text, run[-1][1] + _gap_after(text, run[-1][1]))
                if after is None or after.start() == run[-1][1] \
                        or not self._part(after.group()):
                    break
                run.append(after.span())
            squeezed = "".join(squeeze(text[a:b]) for a, b in run)
            if len(squeezed) >= PIECE and any(c.isalpha() for c in squeezed):
                done = run[-1][1]
                yield run[0][0], done


def _start(text: str, at: int) -> int:
    """Where the word holding ``text[at]`` starts (at most ``LONG`` characters before)."""
    floor = max(0, at - LONG - 1)
    while at > floor and text[at - 1] not in _STOPS and not text[at - 1].isspace():
        at -= 1
    return at


def _gap_before(text: str, at: int) -> int | None:
    """Where the word before ``at`` ends, when ``_GAP`` separators or fewer are between."""
    end = at
    while end > 0 and at - end <= _GAP and text[end - 1] in _STOPS:
        end -= 1
    return end if 0 < at - end <= _GAP and end > 0 else None


def _gap_after(text: str, at: int) -> int:
    """The separators at ``at`` (before the next word), ``_GAP`` or fewer; else a number
    past them (no word is matched there)."""
    end = at
    while end < len(text) and end - at <= _GAP and text[end] in _STOPS:
        end += 1
    return end - at if end - at <= _GAP else len(text) + 1
