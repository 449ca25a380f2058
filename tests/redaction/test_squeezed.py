"""A secret a piece at a time, each piece encoded, the pieces spread out by punctuation and
blanks (``toolhost.redaction.squeezed``): base64 or base32 of 1 to 4 bytes a piece, padded
or not, in order, in reverse order or each piece reversed; zero-padded octal and decimal
numbers, numbers in reverse order; a short secret's (fewer than 10 letters and digits)
encodings that are 12 characters or more."""

from __future__ import annotations

import base64
from collections.abc import Callable

import pytest

from toolhost.redaction import MASK, Redactor

LONG = "sk-live-9f8e7d6c5b4a"
SHORT = "hunter22"


def _chunks(data: bytes, size: int) -> list[bytes]:
    return [data[at:at + size] for at in range(0, len(data), size)]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


FORMS: dict[str, Callable[[bytes], str]] = {
    "base64 a byte a piece, unpadded": lambda s: " ".join(
        _b64(c).rstrip("=") for c in _chunks(s, 1)),
    "base64 pieces, each reversed": lambda s: " ".join(_b64(c)[::-1] for c in _chunks(s, 2)),
    "base64 pieces, in reverse order": lambda s: " ".join(
        reversed([_b64(c) for c in _chunks(s, 2)])),
    "base32 unpadded pieces": lambda s: " ".join(
        base64.b32encode(c).decode().rstrip("=") for c in _chunks(s, 4)),
    "base32 spaced by 8": lambda s: " ".join(
        c.decode() for c in _chunks(base64.b32encode(s), 8)),
    "octal, zero-padded, no separator": lambda s: "".join(f"{b:03o}" for b in s),
    "decimal, zero-padded": lambda s: "".join(f"{b:03d}" for b in s),
    "decimal numbers in reverse order": lambda s: ",".join(str(b) for b in reversed(s)),
    "hex pieces": lambda s: " | ".join(c.hex() for c in _chunks(s, 2)),
}


@pytest.mark.parametrize("secret", [LONG, SHORT])
@pytest.mark.parametrize("form", FORMS)
def test_a_secret_a_piece_at_a_time_is_hidden(secret: str, form: str) -> None:
    text = FORMS[form](secret.encode())
    shown = Redactor(frozenset({secret})).redact(f"out: {text} end")
    assert MASK in shown and shown.startswith("out: ") and shown.endswith(" end"), shown
    assert len(shown) < len(text) // 2 + 14, shown  # (most of it hidden)


@pytest.mark.parametrize("text", [
    "the hunter saw 22 birds, hunter 22",
    "Hunter, 22; HUNTER22 is a name",  # (the secret in another case: spell's, not this)
    "68 75 6e 74 is too short a run",
    "ids: 104, 117, 110",
])
def test_ordinary_text_near_a_short_secret_is_left(text: str) -> None:
    shown = Redactor(frozenset({SHORT})).redact(text)
    assert shown.replace(MASK, "") == shown or "HUNTER22" in text, shown
    if "HUNTER22" not in text:
        assert shown == text


@pytest.mark.parametrize("piece", [LONG[:12], LONG[-12:], LONG[::-1][:12], LONG[::-1][-12:]])
@pytest.mark.parametrize("around", ["out: {} zz", "out: x{} zz", "out: {}{} zz",
                                    "out: {}" + LONG + " zz", "out: " + LONG[::-1] + "{} zz"])
def test_a_piece_forwards_or_reversed_is_hidden_alone_or_glued(piece: str, around: str) -> None:
    # ``rev | cut -c1-12`` shows a piece of the secret reversed: hidden as a piece of it
    # forwards is, glued to a word or to another form of the secret too
    shown = Redactor(frozenset({LONG})).redact(around.replace("{}", piece))
    assert piece not in shown and shown.startswith("out: ") and shown.endswith(" zz"), shown
