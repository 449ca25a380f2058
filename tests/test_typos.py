"""``close_matches``: difflib's near misses, bounded whatever the word's size."""

from __future__ import annotations

import difflib
import tracemalloc

from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.typos import MAX_TYPO, close_matches

WORDS = st.text(alphabet="abcdefgh_-", min_size=0, max_size=40)


@settings(max_examples=400, deadline=None)
@given(word=WORDS, choices=st.lists(WORDS, max_size=12),
       cutoff=st.sampled_from([0.6, 0.75, 0.8]), n=st.integers(1, 3))
def test_the_same_matches_as_difflib_for_any_word_a_person_could_mistype(
        word: str, choices: list[str], cutoff: float, n: int) -> None:
    # the length filter only leaves out choices that cannot reach the ratio
    assert close_matches(word, choices, n, cutoff) == difflib.get_close_matches(
        word, choices, n, cutoff)


def test_a_huge_word_gets_no_hint_and_takes_no_memory() -> None:
    word = "x" * 15_000_000
    tracemalloc.start()
    try:
        assert close_matches(word, ["x" * 10, "servers"]) == []
        assert close_matches("s" * (MAX_TYPO + 1), ["s" * (MAX_TYPO + 1)]) == []
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # difflib indexes every character of the word first: ~600 MB for these 15 million
    assert peak < 1_000_000


def test_choices_of_any_length_are_filtered_before_difflib_reads_them() -> None:
    assert close_matches("servers", ["servr", "s" * 10_000_000]) == ["servr"]


def test_a_choice_at_the_ratio_exactly_is_kept() -> None:
    # 2*2/(3+2) is 0.8 exactly; the length bound in floats (1.2*2 < 0.8*3) left it out
    assert close_matches("___", ["__"], 1, 0.8) == difflib.get_close_matches("___", ["__"], 1, 0.8)
    assert close_matches("___", ["__"], 1, 0.8) == ["__"]
