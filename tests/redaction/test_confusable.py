"""A secret in look-alike characters is hidden (``toolhost.redaction.confusable``): it reads
as the secret to a person and a model (secrets17: each of these was shown as it was)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.redaction import MASK, Redactor
from toolhost.redaction.confusable import folded

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


SHORT = "hunter22"  # (8 characters: under the 10 letters and digits pieces are known by)
R_SHORT = Redactor(frozenset({SECRET, SHORT}))
# what a reader does not see between a secret's characters (secrets24: each showed whole)
WAYS = {
    "tag characters (ASCII smuggling)": lambda s: "".join(chr(0xE0000 + ord(c)) for c in s),
    "a colour per character": lambda s: "".join(f"\x1b[3{i % 7}m{c}" for i, c in
                                                enumerate(s)) + "\x1b[0m",
    "bold by overstrike (man, nroff)": lambda s: "".join(f"{c}\b{c}" for c in s),
    "underlined by overstrike": lambda s: "".join(f"_\b{c}" for c in s),
    "a DEL after each": lambda s: "".join(f"{c}\x7f" for c in s),
    "variation selectors": lambda s: "".join(f"{c}\ufe0f" for c in s),
    "zero-width spaces": "\u200b".join,
    "soft hyphens": "\u00ad".join,
    "an OSC 8 hyperlink's text, coloured": lambda s: (
        "\x1b]8;;https://x/\x1b\\" + "".join(f"\x1b[1m{c}\x1b[22m" for c in s)
        + "\x1b]8;;\x1b\\"),
}


@pytest.mark.parametrize("secret", [SECRET, SHORT])
@pytest.mark.parametrize("way", WAYS.values(), ids=WAYS.keys())
def test_a_secret_with_unseen_characters_between_is_hidden(way: Any, secret: str) -> None:
    out = R_SHORT.redact(f"key: {way(secret)} end")
    assert out.startswith("key: ") and out.endswith(" end")
    assert MASK in out and secret[:3] not in out and secret[-3:] not in out


@pytest.mark.parametrize("text", [
    "\x1b[31mERROR\x1b[0m: build \x1b[1mfailed\x1b[22m after 12 s\n",
    "N\bNA\bAM\bME\bE\n       ls - list directory contents",
    "a\u200bb tag: \U000e0041\U000e0042",
])
def test_other_text_with_such_characters_is_left(text: str) -> None:
    assert R_SHORT.redact(text) == text
