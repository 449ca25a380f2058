"""toolhost.redaction.spell: a secret is hidden however a program spelled it (JSON escapes,
URL encodings, HTML references, Unicode normalisation, mojibake, case), one character at a
time, in any mix of them."""

from __future__ import annotations

import html
import html.entities
import json
import re
import unicodedata
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from toolhost.redaction import JSON_WORDS, MASK, Redactor

PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
       "QyNTUxOQAAACBmFakeKeyMaterialHere1234567890\n-----END OPENSSH PRIVATE KEY-----")
SECRETS = ["wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "s3cr&t<Value>9", "Ab/cd&ef!gh<ij>(k)SECRETVAL",
           "Gr\u00fcn-K\u00e9y-2024", 'P&ss<w>rd"9', "tok\U0001f600en-1234", "pa ss+w/rd=1",
           PEM]


def _every_byte(text: str, fmt: str) -> str:
    return "".join(fmt % b for b in text.encode())


def _u(text: str, fmt: str) -> str:
    units = text.encode("utf-16-be")  # a character past U+FFFF is a surrogate pair
    return "".join(fmt % int.from_bytes(units[i:i + 2], "big") for i in range(0, len(units), 2))


def _named(text: str) -> str:
    return "".join(f"&{html.entities.codepoint2name[ord(c)]};"
                   if ord(c) in html.entities.codepoint2name else c for c in text)


ENCODERS: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "json": lambda s: json.dumps(s),
    "json ascii": lambda s: json.dumps(s, ensure_ascii=True),
    "json php slashes": lambda s: json.dumps(s).replace("/", "\\/"),
    "json go html-safe": lambda s: json.dumps(s, ensure_ascii=False).replace(
        "&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e"),
    "json every char lower": lambda s: _u(s, "\\u%04x"),
    "json every char upper": lambda s: _u(s, "\\u%04X"),
    "json upper hex": lambda s: re.sub(r"\\u[0-9a-f]{4}", lambda m: "\\u" + m[0][2:].upper(),
                                       json.dumps(s, ensure_ascii=True)),
    "json in json": lambda s: json.dumps(json.dumps(s)),
    "json in json ascii": lambda s: json.dumps(json.dumps(s, ensure_ascii=True)),
    "url python": lambda s: quote(s, safe=""),
    "url path": lambda s: quote(s),
    "url plus": lambda s: quote_plus(s),
    "url encodeURIComponent": lambda s: quote(s, safe="!*'()~"),
    "url go query": lambda s: quote(s, safe="~"),
    "url every byte upper": lambda s: _every_byte(s, "%%%02X"),
    "url every byte lower": lambda s: _every_byte(s, "%%%02x"),
    "url mixed case hex": lambda s: "".join(
        (f"%{b:02X}" if i % 2 else f"%{b:02x}") for i, b in enumerate(s.encode())),
    "url twice": lambda s: quote(quote(s, safe=""), safe=""),
    "url latin-1": lambda s: quote(s, encoding="latin-1", errors="ignore")
    if all(ord(c) < 256 for c in s) else quote(s),
    "html": lambda s: html.escape(s),
    "html no quotes": lambda s: html.escape(s, quote=False),
    "html decimal": lambda s: "".join(f"&#{ord(c)};" if not c.isalnum() else c for c in s),
    "html decimal all": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "html hex": lambda s: "".join(f"&#x{ord(c):X};" for c in s),
    "html hex lower, zeros": lambda s: "".join(f"&#x{ord(c):04x};" for c in s),
    "html named": _named,
    "nfd": lambda s: unicodedata.normalize("NFD", s),
    "nfc": lambda s: unicodedata.normalize("NFC", s),
    "mojibake latin-1": lambda s: s.encode().decode("latin-1"),
    "mojibake cp1252": lambda s: s.encode().decode("cp1252", errors="replace")
    if "\ufffd" not in s.encode().decode("cp1252", errors="replace") else s,
    "mojibake as json": lambda s: json.dumps(s.encode().decode("latin-1")),
    "upper": str.upper,
    "lower": str.lower,
    "crlf": lambda s: s.replace("\n", "\r\n"),
}


@pytest.mark.parametrize("encode", ENCODERS.values(), ids=list(ENCODERS))
@pytest.mark.parametrize("secret", SECRETS, ids=range(len(SECRETS)))
def test_every_spelling_is_hidden(secret: str, encode: Callable[[str], str]) -> None:
    shown = encode(secret)
    out = Redactor(frozenset({secret})).redact(f"before {shown} after")
    assert MASK in out
    leftover = out.replace("before ", "").replace(" after", "").strip('"\\')
    assert leftover == MASK, (shown, out)


def _spell(c: str, how: int) -> str:
    n = ord(c)
    if how == 1 and n < 0x10000:
        return f"\\u{n:04x}"
    if how == 2 and n < 0x10000:
        return f"\\u{n:04X}"
    if how == 3:
        return _every_byte(c, "%%%02X")
    if how == 4:
        return _every_byte(c, "%%%02x")
    if how == 5:
        return f"&#{n};"
    if how == 6:
        return f"&#x{n:x};"
    return c


@settings(max_examples=150, deadline=None)
@given(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=4, max_size=30),
       st.randoms(use_true_random=False))
def test_any_mix_of_spellings_per_character_is_hidden(secret: str, rnd: object) -> None:
    secret = unicodedata.normalize("NFC", secret)
    assume(secret not in JSON_WORDS)  # never hidden (tests/redaction/test_json_words.py)
    choose = rnd.randrange  # type: ignore[attr-defined]
    shown = "".join(_spell(c, choose(7)) for c in secret)
    out = Redactor(frozenset({secret})).redact(f"\0{shown}\0")
    assert out == f"\0{MASK}\0", (secret, shown)


@pytest.mark.parametrize("text", [
    "Grun-Key-2024", "Gr-n-K-y-2024", "GR\u00dcN-K\u00c9Y", "plain text & <b>html</b> %41 \\u0041",
])
def test_what_only_looks_like_a_secret_stays(text: str) -> None:
    r = Redactor(frozenset({"Gr\u00fcn-K\u00e9y-2024"}))
    assert r.redact(text) == text


def test_case_counts_for_a_secret_under_eight_characters() -> None:
    # an upper-cased short secret is ordinary text too often to hide (docs/secrets.md)
    r = Redactor(frozenset({"abc-def", "Long-Enough-9"}))
    assert r.redact("abc-def ABC-DEF long-enough-9 LONG-ENOUGH-9") == "*** ABC-DEF *** ***"


def test_a_secret_with_a_lone_surrogate_and_text_with_one() -> None:
    r = Redactor(frozenset({"tok\udcffen-value"}))
    assert r.redact("a tok\udcffen-value \ud800 b") == "a *** \ud800 b"
    assert Redactor(frozenset({"plain-token"})).redact("\udc80plain-token") == "\udc80***"


def test_a_pem_key_is_one_secret_in_json_and_with_crlf() -> None:
    r = Redactor(frozenset({PEM}))
    assert r.redact(json.dumps({"key": PEM})) == '{"key": "***"}'
    assert r.redact("k=" + PEM.replace("\n", "\r\n") + ";") == "k=***;"
    assert r.redact(quote(PEM, safe="")) == MASK


def test_many_candidates_that_are_not_secrets_cost_linear_time() -> None:
    # a text full of a secret's first characters: each place is tried once, never rescanned
    r = Redactor(frozenset({PEM, "ghp_abcdefghijklmnopqrstuvwxyz012345"}))
    text = "-----BEGIN OPENSSH PRIV " * 150 + "ghp_abcdefghij " * 150
    assert r.redact(text) == text
    assert r.redact(text + PEM) == text + MASK
    # past the places a text may be tried at (tests/redaction/test_cost.py), the rest of a
    # text made of such starts is hidden unread: the secret after them still is
    many = "-----BEGIN OPENSSH PRIV " * 4000 + "ghp_abcdefghij " * 4000
    shown = r.redact(many + PEM)
    assert shown.startswith("-----BEGIN OPENSSH PRIV " * 100) and shown.endswith(MASK)
    assert PEM.splitlines()[-2][-12:] not in shown


def test_a_case_variants_latin1_byte_does_not_cut_a_percent_encoded_character_short() -> None:
    # found by the property above: 'Ã' (the upper case of 'ã') is %C3 as one Latin-1 byte;
    # that shorter spelling was tried first and the match ended there, showing '%A3'
    secret = "000000\u00a0\u00e3"
    assert Redactor(frozenset({secret})).redact("\x00000000\u00a0%C3%A3\x00") == f"\x00{MASK}\x00"
