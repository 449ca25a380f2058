"""Near misses for "did you mean" hints, bounded whatever the word's size.

``difflib.get_close_matches`` indexes every character of the word first: a 15 MB unknown
key in a config took 650 MB and 3 s for a hint nobody reads. A word longer than any name
could be mistyped as gets no hint, and choices too unlike in length to reach the ratio are
not compared at all. Of many choices alike in length, only the ``MAX_COMPARED`` sharing the
longest start and end with the word are compared.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["MAX_COMPARED", "MAX_TYPO", "close_matches"]

MAX_TYPO = 256  # a longer word gets no hint: no typo of a name is that long


def close_matches(word: str, choices: Iterable[str], n: int = 1,
                  cutoff: float = 0.6) -> list[str]:
    """``difflib.get_close_matches(word, choices, n, cutoff)``, bounded: none for a word of
    more than ``MAX_TYPO`` characters, and only the choices whose length can reach the ratio
    (``2*M/(a+b) >= cutoff`` with M at most the shorter length) are compared.

    A choice that differs from the word in case only (``PROJECT`` for ``project``,
    ``--JSON``, ``SERVERS:``) comes first: difflib's ratio for it is 0, so it was never
    offered. When difflib finds nothing, the words are compared case-folded
    (``Sevrers`` for ``servers``)."""
    if len(word) > MAX_TYPO:
        return []
    pool = list(choices)
    folded = word.casefold()
    same = [c for c in pool if c != word and c.casefold() == folded]
    found = _near(word, pool, n, cutoff)
    if not found:
        by_fold: dict[str, str] = {}
        for choice in pool:
            by_fold.setdefault(choice.casefold(), choice)
        found = [by_fold[c] for c in _near(folded, list(by_fold), n, cutoff)]
    return (same + [c for c in found if c not in same])[:n]


def _near(word: str, choices: list[str], n: int, cutoff: float) -> list[str]:
    """difflib's matches among the choices whose length can reach the ratio."""
    size = len(word)
    # difflib's own first test (real_quick_ratio), computed as it does: the same floats, so
    # rounding never leaves out a choice it would take (1.2*2 < 0.8*3 in floats)
    near = [c for c in choices
            if (2.0 * min(size, len(c)) / (size + len(c)) if size + len(c) else 1.0) >= cutoff]
    if not near:
        return []
    if len(near) > MAX_COMPARED:
        near = _likeliest(word, near)
    import difflib  # only for a hint: not on every start

    return difflib.get_close_matches(word, near, n=n, cutoff=cutoff)


# choices difflib compares for one hint, at most: ~100 us each for names alike in length
# (a python tool naming a typo'd function of a 10,000-function module took 1.3 s, 50 such
# tools 67 s); past it, the choices beside the word in sorted order, by their starts and by
# their ends (sorting is C, the neighbours share the longest start or end with the word)
MAX_COMPARED = 200


def _likeliest(word: str, choices: list[str]) -> list[str]:
    import bisect

    half = MAX_COMPARED // 4
    picked: dict[str, None] = {}
    for key in (word, word[::-1]):
        flip = key is not word
        ordered = sorted(c[::-1] for c in choices) if flip else sorted(choices)
        at = bisect.bisect_left(ordered, key)
        for found in ordered[max(0, at - half):at + half]:
            picked[found[::-1] if flip else found] = None
    return list(picked)
