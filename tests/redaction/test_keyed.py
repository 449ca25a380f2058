"""A secret's pieces between keys: a query's values, a JSON object's keys or its values,
each piece shorter than a known piece (``toolhost.redaction.keyed``); keys and values that
hold no piece stay."""

from __future__ import annotations

import base64
import json

import pytest

from toolhost.redaction import Redactor

SECRET = "sk-live-9f8e7d6c5b4a3921"
FOURS = [SECRET[i:i + 4] for i in range(0, len(SECRET), 4)]
SIXES = [SECRET[i:i + 6] for i in range(0, len(SECRET), 6)]
B64 = [base64.b64encode(SECRET[i:i + 3].encode()).decode() for i in range(0, len(SECRET), 3)]

KEYED = {
    "a query's values": "https://a.example/x?" + "&".join(f"p{i}={c}" for i, c in
                                                            enumerate(FOURS)),
    "a query's values in base64": "q?" + "&".join(f"p{i}={c}" for i, c in enumerate(B64)),
    "a JSON object's keys": json.dumps({c: i for i, c in enumerate(SIXES)}),
    "a JSON object's values": json.dumps({f"k{i}": c for i, c in enumerate(SIXES)}),
}


@pytest.mark.parametrize("text", KEYED.values(), ids=list(KEYED))
def test_a_secrets_pieces_between_keys_are_hidden(text: str) -> None:
    shown = Redactor(frozenset({SECRET})).redact(text)
    assert "***" in shown
    for piece in (*FOURS[1:], *SIXES[1:], *B64[1:]):
        assert f"={piece}" not in shown and f'"{piece}"' not in shown, shown


def test_keys_and_values_without_a_piece_stay() -> None:
    text = 'https://a.example/?page=3&q=item9&sort=asc {"name": "x", "id": "7f8e", "n": 1}'
    assert Redactor(frozenset({SECRET})).redact(text) == text
