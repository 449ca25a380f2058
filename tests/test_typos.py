"""``close_matches``: difflib's near misses, bounded whatever the word's size."""

from __future__ import annotations

import difflib
import tracemalloc

import pytest
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


def test_every_hint_in_toolhost_goes_through_close_matches() -> None:
    # a raw difflib.get_close_matches on a config's word (a plugin name, a python: attribute,
    # a placeholder, a scenario's tool) took ~700 MB for a 15 MB word
    import pathlib

    import toolhost

    root = pathlib.Path(toolhost.__file__).parent
    raw = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.name != "typos.py" and "get_close_matches" in p.read_text("utf-8"))
    assert raw == []


def _peak(call: object) -> tuple[object, int]:
    tracemalloc.start()
    try:
        result = call()  # type: ignore[operator]
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class _Named:
    name = "toolhost-files"


def test_a_huge_python_attribute_plugin_name_or_placeholder_gets_no_hint_cheaply() -> None:
    import json

    from toolhost.backends.python_import import _attribute_hint
    from toolhost.backends.templating import misspelt_placeholder
    from toolhost.config.model import PluginRequirement
    from toolhost.plugins.activate import _missing

    word = "dumps" + "x" * 2_000_000  # difflib: ~35 bytes a character
    hint, peak = _peak(lambda: _attribute_hint(json, word))
    assert "did you mean" not in str(hint) and peak < 8 * len(word)
    problem, peak = _peak(lambda: _missing(PluginRequirement("toolhost-" + word),
                                           {"toolhost-files": _Named()}))
    assert "did you mean" not in str(problem) and peak < 8 * len(word)
    found, peak = _peak(lambda: misspelt_placeholder([word], ["dumps"]))
    assert found is None and peak < 8 * len(word)
    # a typo still gets its hint
    assert _attribute_hint(json, "detect_encodnig") == "did you mean 'detect_encoding'?"


@pytest.mark.parametrize(("word", "choices", "expected"), [
    ("PROJECT", ["project", "other"], ["project"]),      # difflib's ratio: 0
    ("Servers", ["servers", "settings"], ["servers"]),
    ("--JSON", ["--json", "--strict"], ["--json"]),
    ("SEVRERS", ["servers"], ["servers"]),               # a typo in capitals
    ("ÉCHO", ["écho"], ["écho"]),
    ("STRASSE", ["straße"], ["straße"]),                 # casefold, not lower
])
def test_a_word_in_other_capitals_gets_its_choice(
        word: str, choices: list[str], expected: list[str]) -> None:
    assert close_matches(word, choices) == expected


def test_the_same_case_is_preferred_and_no_word_is_its_own_hint() -> None:
    assert close_matches("a", ["A", "a"]) == ["A"]       # "a" is the word itself
    assert close_matches("Greet", ["greet", "greets"], n=2) == ["greet", "greets"]
    assert close_matches("QQQ", ["servers"]) == []


def test_many_alike_choices_are_compared_at_most_max_compared_and_still_found(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """10,000 names alike in length (a module's functions): difflib compared every one, at
    ~100 us each, for each tool that named one wrongly (50 such tools: 67 s)."""
    from toolhost.typos import MAX_COMPARED

    compared = [0]
    ratio = difflib.SequenceMatcher.ratio

    def counted(self: difflib.SequenceMatcher[str]) -> float:
        compared[0] += 1
        return ratio(self)

    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", counted)
    choices = [f"function_number_{i}" for i in range(10_000)]
    for word in ("function_numbr_4812", "xfunction_number_4812", "function_number_4812x"):
        compared[0] = 0
        assert close_matches(word, choices) == ["function_number_4812"]
        # difflib takes each match's ratio twice (the test, then the result)
        assert 0 < compared[0] <= 2 * MAX_COMPARED
