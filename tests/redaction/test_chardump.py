"""A secret spelled a character at a time, spaced out (``toolhost.redaction.chardump``), in
another case or in rot13 too (``tr a-z A-Z | sed 's/./& /g'``): a run of single characters
between blanks is no word, and the secret in that case is hidden as a word already."""

from __future__ import annotations

import codecs

import pytest

from toolhost.redaction import MASK, Redactor

SECRETS = ["hunter22", "sk-live-9f8e7d6c5b4a"]


CHANGES = {"upper": str.upper, "lower": str.lower, "rot13": lambda s: codecs.encode(s, "rot13")}
CASES = [(secret, name) for secret in SECRETS for name, change in CHANGES.items()
         if change(secret) != secret]


@pytest.mark.parametrize(("secret", "change"), CASES)
@pytest.mark.parametrize("sep", [" ", "   "])
def test_a_secret_spaced_out_in_another_case_or_rot13_is_hidden(
        secret: str, change: str, sep: str) -> None:
    text = sep.join(CHANGES[change](secret))
    shown = Redactor(frozenset({secret})).redact(f"was: {text} (end)")
    assert shown == f"was: {MASK} (end)", shown


@pytest.mark.parametrize("text", [
    "h u n t e r", "H U N T E R 2", "u h a g r e", "a b c d e f g h i j",
    "the hunter's 22 H-U-N-T-E-R ideas",
])
def test_other_spaced_characters_are_left(text: str) -> None:
    assert Redactor(frozenset({"hunter22"})).redact(text) == text
