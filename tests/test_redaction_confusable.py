"""A secret in look-alike characters is hidden (``toolhost.redaction_confusable``): it reads
as the secret to a person and a model (secrets17: each of these was shown as it was)."""

from __future__ import annotations

import pytest

from toolhost.redaction import MASK, Redactor
from toolhost.redaction_confusable import folded

SECRET = "sk-live-9f8e7d6c5b4a3921"
R = Redactor(frozenset({SECRET, "Geheim-pässwörd"}))


def _shifted(text: str, letters: int, digits: int) -> str:
    return "".join(chr(letters + ord(c) - ord("a")) if c.islower()
                   else chr(digits + ord(c) - ord("0")) if c.isdigit() else c for c in text)


LOOKALIKES = {
    "mathematical bold": _shifted(SECRET, 0x1D41A, 0x1D7CE),
    "mathematical monospace": _shifted(SECRET, 0x1D68A, 0x1D7F6),
    "circled letters": _shifted(SECRET, 0x24D0, 0x2460 - 1).replace(chr(0x245F), "⓪"),
    "Cyrillic e, a, c, k": SECRET.translate(str.maketrans("eack", "еаск")),
    "Greek o, Cyrillic s in the second secret": "Geheim-pässwörd".replace("e", "е", 1),
    "a piece of it, mathematical sans": _shifted(SECRET[:14], 0x1D5BA, 0x1D7E2),
    "struck through (U+0336 after each)": "".join(c + "\u0336" for c in SECRET),
    "underlined, marks stacked": "".join(c + "\u0332\u0301" for c in SECRET),
    "circled and struck through": "".join(c + "\u0336" for c in _shifted(
        SECRET, 0x24D0, 0x2460 - 1).replace(chr(0x245F), "⓪")),
}


@pytest.mark.parametrize("text", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_a_secret_in_look_alike_characters_is_hidden(text: str) -> None:
    assert R.redact(f"key «{text}» end") == f"key «{MASK}» end"


@pytest.mark.parametrize("text", [
    "Ünïcödé text ① ② ③, ﬁne, ２０２６年, Ελληνικά, русский текст",
    "𝐛𝐨𝐥𝐝 𝐰𝐨𝐫𝐝𝐬 and ⓒⓘⓡⓒⓛⓔⓢ",
    "décomposé: e\u0301te\u0301, sk-live-9\u0336 struck",
])
def test_other_text_in_such_characters_is_left(text: str) -> None:
    assert R.redact(text) == text


def test_each_character_folds_to_one() -> None:
    text = "".join(LOOKALIKES.values())
    assert len(folded(text)) == len(text)
    assert folded(LOOKALIKES["mathematical bold"]) == SECRET
