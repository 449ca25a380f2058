""""did you mean" names the close key for a typo, and costs nothing for a huge unknown key
(difflib indexed every character of it: a 15 MB key took 600 MB for the hint)."""

from __future__ import annotations

import tracemalloc

import pytest

from toolhost.config.checks import did_you_mean

KEYS = ("servers", "permissions", "settings", "toolhost", "extends")


@pytest.mark.parametrize(("word", "hint"), [
    ("sever", "did you mean 'servers'?"), ("permisions", "did you mean 'permissions'?"),
    ("toolhots", "did you mean 'toolhost'?"), ("x", ""), ("completely-unrelated", ""),
])
def test_a_typo_gets_the_close_key(word: str, hint: str) -> None:
    assert did_you_mean(word, KEYS) == hint


@pytest.mark.parametrize("word", ["k" * 200_000, "servers" * 30_000,
                                  "servers" + "x" * 200_000])
def test_a_huge_unknown_key_gets_no_hint_in_memory_of_its_size(word: str) -> None:
    tracemalloc.start()
    try:
        hint = did_you_mean(word, KEYS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert hint == "" and peak < len(word) // 4
