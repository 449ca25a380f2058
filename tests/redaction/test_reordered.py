"""A secret's pieces out of order, or each written backwards, each shorter than a known
piece: ``***`` (``toolhost.redaction.reordered``); words that only share a few characters
with a secret stay."""

from __future__ import annotations

import pytest

from toolhost.redaction import Redactor

SECRET = "sk-live-9f8e7d6c5b4a3921"
CHUNKS = ("sk-live-", "9f8e7d6c", "5b4a3921")

SHOWN = {
    "chunks in reverse order": " ".join(reversed(CHUNKS)),
    "each chunk reversed": " ".join(c[::-1] for c in CHUNKS),
    "reversed chunks, reverse order": " ".join(c[::-1] for c in reversed(CHUNKS)),
    "shuffled, a line each": "\n".join((CHUNKS[1], CHUNKS[2], CHUNKS[0])),
    "a JSON list, reversed": '["5b4a3921", "9f8e7d6c", "sk-live-"]',
    "chunks of 4, reverse order": "3921 5b4a 7d6c 9f8e live sk--",
    "16 of it reversed, alone": "1293a4b5c6d7e8f9",
}


@pytest.mark.parametrize("text", SHOWN.values(), ids=list(SHOWN))
def test_a_secrets_chunks_out_of_order_are_hidden(text: str) -> None:
    shown = Redactor(frozenset({SECRET})).redact(f"token: {text} (done)")
    for chunk in (*CHUNKS, *(c[::-1] for c in CHUNKS)):
        if sum(ch.isalnum() for ch in chunk) >= 6:
            assert chunk not in shown, shown
    assert shown.startswith("token: ") and shown.endswith(" (done)")


@pytest.mark.parametrize("text", [
    "the 2024 live show at 9pm", "sk-live-docs v9 build 3921", "ids: 5b4a 12 abcd 0000",
])
def test_words_sharing_a_few_characters_with_a_secret_stay(text: str) -> None:
    assert Redactor(frozenset({SECRET})).redact(text) == text
