"""toolhost.errors: a problem prints as one located line, whatever a config put in it."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.errors import Problem, shown


def test_a_forged_line_or_an_escape_sequence_is_written_out() -> None:
    problem = Problem("unknown key", "c.yaml", 3, 5,
                      key_path="servers.a\nfake.yaml:1:1: all good\r\x1b[2K\x07\u2028")
    assert str(problem) == ("c.yaml:3:5: servers.a\\nfake.yaml:1:1: all good\\r\\x1b[2K\\x07"
                            "\\u2028: unknown key")


@given(st.text())
def test_any_text_prints_as_one_line_without_control_characters(text: str) -> None:
    line = str(Problem(text, "f", 1, 1, key_path=text, hint=text))
    assert len(line.splitlines()) == 1
    assert not any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in line)
    assert shown("plain text, ünïcode") == "plain text, ünïcode"


_HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}


@pytest.mark.parametrize("char", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200e", "\u200f",
                                  "\u061c", "\u200b", "\u200c", "\u200d", "\u2060", "\ufeff",
                                  "\U000e0041", "\u00ad", "\ud800", "\x85", "\x1b", "\n",
                                  "\u2028", "\u2029"])
def test_every_invisible_or_reordering_character_is_written_escaped(char: str) -> None:
    problem = Problem(f"got '{char}txet'", f"a{char}.yaml", 3, 4, f"servers.s{char}")
    text = str(problem)
    assert char not in text
    assert text.count("\\") == 3  # each shown as one escape, nothing else changed
    assert "txet" in text and text.startswith("a\\")


@given(st.text(max_size=40))
def test_shown_leaves_no_hidden_character_and_changes_nothing_else(text: str) -> None:
    out = shown(text)
    assert not any(unicodedata.category(c) in _HIDDEN_CATEGORIES for c in out)
    if not any(unicodedata.category(c) in _HIDDEN_CATEGORIES for c in text):
        assert out == text
