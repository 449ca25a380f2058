"""A secret under a simple cipher is hidden (``toolhost.redaction.cipher``): ROT47 and the
Caesar shifts of its letters as literal forms, XOR with one byte by the differences of its
bytes, in decoded hex or base64 and in printable text."""

from __future__ import annotations

import base64
import shutil
import string
import subprocess

import pytest

from toolhost.redaction import MASK, Redactor
from toolhost.redaction.cipher import Xored, cipher_forms

SECRET = "sk-live-9f8e7d6c5b4a3921"
R = Redactor(frozenset({SECRET}))
RAW = SECRET.encode()


def rot47(text: str) -> str:
    return "".join(chr(33 + (ord(c) - 33 + 47) % 94) if 33 <= ord(c) <= 126 else c for c in text)


def caesar(text: str, k: int) -> str:
    low, up = string.ascii_lowercase, string.ascii_uppercase
    return text.translate(str.maketrans(low + up, low[k:] + low[:k] + up[k:] + up[:k]))


def xor(data: bytes, key: int) -> bytes:
    return bytes(b ^ key for b in data)


def rotated(text: str, letters: int, digits: int) -> str:
    digit = string.digits
    return caesar(text, letters).translate(str.maketrans(digit, digit[digits:] + digit[:digits]))


def vigenere(text: str, key: str, every: bool = False) -> str:
    """``key`` over the letters (counted over the letters, or over ``every`` character)."""
    out, n = [], 0
    for i, char in enumerate(text):
        shift = ord(key[(i if every else n) % len(key)]) - ord("a")
        if char.isalpha():
            base = ord("a") if char.islower() else ord("A")
            out.append(chr((ord(char) - base + shift) % 26 + base))
            n += 1
        else:
            out.append(char)
    return "".join(out)


def xor_key(data: bytes, key: bytes) -> bytes:
    return bytes(b ^ key[i % len(key)] for i, b in enumerate(data))


def spaced(data: bytes, sep: str = " ") -> str:
    return sep.join(f"{b:02x}" for b in data)


CIPHERS = {
    "rot47": rot47(SECRET),
    "rot47 | rev": rot47(SECRET)[::-1],
    "tr a-z b-za (shift 1)": caesar(SECRET, 1),
    "caesar 3": caesar(SECRET, 3),
    "caesar 25": caesar(SECRET, 25),
    "rev | caesar 3": caesar(SECRET[::-1], 3),
    "caesar 7 | base64": base64.b64encode(caesar(SECRET, 7).encode()).decode(),
    "rot47 | base64": base64.b64encode(rot47(SECRET).encode()).decode(),
    "xor 0x01 | xxd -p": xor(RAW, 0x01).hex(),
    "xor 0x20 | xxd -p": xor(RAW, 0x20).hex(),
    "xor 0x42 | hex upper": xor(RAW, 0x42).hex().upper(),
    "xor 0xff | xxd -p": xor(RAW, 0xFF).hex(),
    "xor 0x42 | base64": base64.b64encode(xor(RAW, 0x42)).decode(),
    "xor 0xff | base64url": base64.urlsafe_b64encode(xor(RAW, 0xFF)).decode(),
    "xor 0x42 | base64 | base64": base64.b64encode(
        base64.b64encode(xor(RAW, 0x42))).decode(),
    "xor 0x01, printable": xor(RAW, 0x01).decode("ascii"),
    # secrets16: XOR then hex spaced by bytes, and keys of 2 to 4 bytes repeated
    "xor 0x42 | od -An -tx1": spaced(xor(RAW, 0x42)),
    "xor 0x42 | xxd -i": spaced(xor(RAW, 0x42), ", 0x").join(["0x", ""]),
    "xor 0x42, hex:with:colons": spaced(xor(RAW, 0x42), ":"),
    "xor 0x42 | od -An -tx1 -w8": "\n ".join(spaced(xor(RAW, 0x42)[i:i + 8])
                                              for i in range(0, len(RAW), 8)),
    "xor key of 2 bytes | xxd -p": xor_key(RAW, b"\x13\x37").hex(),
    "xor key of 3 bytes | xxd -p": xor_key(RAW, b"abc").hex(),
    "xor key of 4 bytes | base64": base64.b64encode(xor_key(RAW, b"\xde\xad\xbe\xef")).decode(),
    "xor key of 4 bytes, spaced hex": spaced(xor_key(RAW, b"\xde\xad\xbe\xef")),
    "xor key of 3 bytes, at its 2nd phase": xor_key(b"x" + RAW, b"key").hex()[2:],
    "xor key of 2 bytes, printable": xor_key(RAW, b"\x01\x02").decode("ascii"),
    # secrets16: letters and digits rotated (rot18: rot13 and rot5), reversed, in base64
    "rot13 + rot5 of the digits": rotated(SECRET, 13, 5),
    "tr a-z0-9 f-za-e5-90-4": rotated(SECRET, 5, 5),
    "digits +3 only": rotated(SECRET, 0, 3),
    "rot18 | rev": rotated(SECRET, 13, 5)[::-1],
    "rot18 in capitals": rotated(SECRET.upper(), 7, 9),
    "rot18 | base64": base64.b64encode(rotated(SECRET, 13, 5).encode()).decode(),
    "vigenere, key of 3 letters": vigenere(SECRET, "key"),
    "vigenere, key of 4 over every character": vigenere(SECRET, "abcd", every=True),
    "vigenere, key of 2 | rev": vigenere(SECRET[::-1], "xz"),
    # secrets17: base85 of other bytes than compressed data's, without <~ ~> (no magic)
    "xor 0x42 | b85encode": base64.b85encode(xor(RAW, 0x42)).decode(),
    "xor 0x42 | a85encode": base64.a85encode(xor(RAW, 0x42)).decode(),
    "xor key of 3 bytes | a85encode": base64.a85encode(xor_key(RAW, b"k3y")).decode(),
    "rot18 | b85encode": base64.b85encode(rotated(SECRET, 13, 5).encode()).decode(),
    # secrets17: Atbash (tr a-z zyxwvutsrqponmlkjihgfedcba), reversed too
    "atbash": SECRET.translate(str.maketrans(string.ascii_lowercase,
                                             string.ascii_lowercase[::-1])),
    "atbash | rev": SECRET[::-1].translate(str.maketrans(string.ascii_lowercase,
                                                         string.ascii_lowercase[::-1])),
    # secrets17: keys of 5 to 16 bytes (the key at each place is the secret XOR the data)
    "xor key of 5 bytes | xxd -p": xor_key(RAW, b"abcde").hex(),
    "xor key of 8 bytes | base64": base64.b64encode(xor_key(RAW, bytes(range(1, 9)))).decode(),
    "xor key of 7 bytes, printable": xor_key(RAW, b"\x01\x02\x03\x01\x02\x03\x04").decode(),
    "xor key of 11 bytes, at its 5th phase": xor_key(b"head" + RAW, b"passphrase!").hex()[8:],
}


@pytest.mark.parametrize("form", CIPHERS.values(), ids=CIPHERS.keys())
def test_a_secret_under_a_simple_cipher_is_hidden(form: str) -> None:
    shown = R.redact(f"token: {form} (done)")
    assert shown == f"token: {MASK} (done)"


def test_a_scripts_xored_token_is_hidden_from_its_command() -> None:
    # what a script that "hides" a token prints: each byte XORed with 0x5a, then hex
    if not shutil.which("python3"):
        pytest.skip("needs python3")
    script = ("import sys; d = sys.stdin.buffer.read(); "
              "print('obfuscated:', bytes(b ^ 0x5a for b in d).hex())")
    out = subprocess.run(["python3", "-c", script], input=RAW, capture_output=True,
                         check=True).stdout.decode()
    assert R.redact(out) == f"obfuscated: {MASK}\n"


LONG = "ghp-live-abcdefghijklmnopqrstuv-2026x"  # 26 letters: keys of up to 16 letters


def test_a_long_xor_key_is_found_by_its_period() -> None:
    # a key of up to half the secret's length: each byte of the secret is in a step
    redactor = Redactor(frozenset({LONG}))
    for key in (bytes(range(3, 19)), b"abcdefghijklmno", b"\xde\xad\xbe\xef\x01"):
        assert redactor.redact(xor_key(LONG.encode(), key).hex()) == MASK
    # a near-miss whose middle (free at a lag past half its length) differs is no secret
    near = LONG.encode()[:18] + b"X" + LONG.encode()[19:]
    for lag in (14, 16, 17):
        assert Xored([LONG[:2 * lag - 2]]).spans(near * 2) == []


@pytest.mark.parametrize("key", ["abcde", "secret", "longerkeys", "passphraseofsixt"])
def test_a_long_vigenere_key_is_found_by_its_period(key: str) -> None:
    redactor = Redactor(frozenset({LONG}))
    for form in (vigenere(LONG, key), vigenere(LONG, key, every=True),
                 vigenere(LONG[::-1], key).upper()):
        assert redactor.redact(f"key: {form} .") == f"key: {MASK} ."


@pytest.mark.parametrize("text", [
    "the quick brown fox jumps over the lazy dog, build 2026-11-27 " * 20,
    "a" * 64 + " " + "0" * 64 + " " + "ff" * 40,  # runs of one byte
    base64.b64encode(bytes(range(256))).decode(),
    caesar("sk-live", 3),  # a shifted piece: a shorter text than the secret
    # spaced hex of other data, a key of 4 bytes over other data
    spaced(bytes(range(40))) + "\n" + spaced(b"a plain log line", ":"),
    xor_key(b"a plain log line, nothing in it at all", b"\xde\xad\xbe\xef").hex(),
    "12 34 56 78 90 12 34 56 78 90 ab cd",
    rotated(SECRET, 13, 5)[:-1] + "q",  # its shape, but not one pair of shifts
    "ab-cdef-1a2b3c4d5e6f7890, xy-zabc-0z9y8x7w6v5u4321",  # its shape
    # keys of 5 to 16 bytes over other data; a text repeating every 5 to 16 bytes
    xor_key(b"a plain log line, nothing in it at all, none", b"passphrase!").hex(),
    "0123456789abcdef" * 8, ("abcde" * 30).encode().hex(),
    # words with base85's punctuation: minified code and JSON, a URL's query, base85 of
    # other bytes
    'if(a){b[c]=d;}else{return(e<f)?g:h;}',
    '{"id":1,"tags":["a","b"],"ok":true,"next":null}',
    "https://example.com/search?q=a&page=2&sort=name&dir=asc#top",
    base64.b85encode(b"other bytes, XORed: " + xor(b"nothing to see here", 0x42)).decode(),
    base64.a85encode(bytes(range(200))).decode(),
])
def test_ordinary_text_is_left_as_it_is(text: str) -> None:
    assert R.redact(text) == text


def test_a_secret_of_few_distinct_bytes_has_no_xor_form() -> None:
    # its differences would be those of any run of one byte
    assert not Xored(["aaaaaaaaaaaa", "abababababab"])
    # one repeating every 4 bytes has only zeros 4 bytes apart (any such run has)
    assert Redactor(frozenset({"abcdabcdabcdabcd"})).redact("00" * 40) == "00" * 40
    assert Redactor(frozenset({"aaaaaaaaaaaa"})).redact("58" * 30) == "58" * 30


def test_short_secrets_have_no_cipher_forms() -> None:
    # a shifted short word is another word: `abc-def` by 1 is `bcd-efg`
    assert cipher_forms("abc-def") == set()
    assert Redactor(frozenset({"abc-def"})).redact("bcd-efg") == "bcd-efg"


def test_shapes_are_checked_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    # 20,000 tokens of the secret's shape, none of its shifts: each is checked in Python;
    # past MAX_SHAPED plus one per 32 characters the rest is hidden unchecked (fail closed)
    from toolhost.redaction import cipher as redaction_cipher

    calls = [0]
    real = redaction_cipher._shifted

    def counted(seen: str, form: str) -> bool:
        calls[0] += 1
        return real(seen, form)

    monkeypatch.setattr(redaction_cipher, "_shifted", counted)
    text = " ".join(["ab-cdef-1a2b3c4d5e6f7890"] * 20_000)
    shown = redaction_cipher.Shifted([SECRET]).spans(text)
    assert calls[0] <= redaction_cipher.MAX_SHAPED + len(text) // 32 + 1
    assert shown and shown[-1][1] == len(text)  # the last ones hidden unchecked
