"""A secret written as Python's ``\\N{NAME}`` escapes, one a character (any case, with or
without separators), is ``***``; ordinary text with a few named characters is left as it is
(``toolhost.redaction.escapes``)."""

from __future__ import annotations

import unicodedata

import pytest

from toolhost.redaction import Redactor

SECRET = "sk-live-9f8e7d6c5b4a3921"


def _named(text: str, sep: str = "", lower: bool = False) -> str:
    names = (unicodedata.name(c) for c in text)
    return sep.join("\\N{%s}" % (n.lower() if lower else n) for n in names)


@pytest.mark.parametrize("shown", [
    'token = "' + _named(SECRET) + '"',
    _named(SECRET, lower=True),
    _named(SECRET, sep=", "),
    "\\" + _named(SECRET).replace("\\", "\\\\"),  # as JSON writes the source
])
def test_a_secret_spelled_by_character_names_is_hidden(shown: str) -> None:
    out = Redactor([SECRET]).redact(shown)
    assert "***" in out and "LETTER" not in out.upper()


def test_ordinary_named_characters_stay() -> None:
    text = 'print("\\N{BULLET} done \\N{EM DASH} \\N{LATIN SMALL LETTER A}\\N{NO SUCH NAME}")'
    assert Redactor([SECRET]).redact(text) == text
