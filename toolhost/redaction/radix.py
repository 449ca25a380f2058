"""The rarer encodings a run may be in: base58 (a big number), base85 (Ascii85, Python's
b85, Z85; a word with no ``<~ ~>``, decoded when it starts as compressed data or holds the
characters only base85 has) and uuencode (a block, or its lines alone). For
``toolhost.redaction.decoded``.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import re
from collections.abc import Iterator

__all__ = ["A85", "BASE58", "BASE85", "FIRSTS85", "MAX85", "MAX_B58", "MIN85", "MIN_B58",
           "NOT85", "UU", "UULINES", "WORD85", "b58decode", "packed85", "uu_blocks",
           "uudecode"]

_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
BASE58 = re.compile(r"[1-9A-HJ-NP-Za-km-z]+")
MIN_B58, MAX_B58 = 16, 512  # base58 is a big number: decoding costs its length squared
A85 = re.compile(r"<~[!-uz \t\r\n]{5,}~>")
UU = re.compile(r"(?m)\bbegin [0-7]{3,4} [^\n]*\n((?:[!-`][ -`]*\r?\n)+)`?\r?\n?end$")
# uuencode's lines (a length character, then 4 characters per 3 bytes), begin and end cut off
UULINES = r"(?m)(?:^[!-M][ -`]{4,84}\r?(?:\n|\z))+"
# a word that may be base85 of any bytes (an XORed secret's: no magic to start it), with 3 of
# the characters base85 has and base64, hex and paths have not (a URL's query has a few); 20
# to 512 characters
# (longer: minified code, not decoded)
_SPECIAL85 = "!\"#$&'()*,;<>@[\\]^`{|}"
WORD85 = r"(?:[!-~]*[" + re.escape(_SPECIAL85) + r"]){3}[!-~]*"  # (prose: "text," is none)
NOT85 = str.maketrans("", "", _SPECIAL85)
MIN85, MAX85 = 20, 512
_A85_ALPHABET = "".join(chr(33 + i) for i in range(85))
_B85_ALPHABET = ("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                 "!#$%&()*+-;<=>?@^_`{|}~")
_Z85_ALPHABET = ("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                 ".-:+=^!/*?&<>()[]{}@%$#")
_Z85_TO_B85 = str.maketrans(_Z85_ALPHABET, _B85_ALPHABET)
_OUT_A85 = str.maketrans("", "", _A85_ALPHABET + "z \t\r\n")  # (what is left: not one)
_OUT_B85 = str.maketrans("", "", _B85_ALPHABET)


def b58decode(run: str) -> bytes:
    """Base58 (Bitcoin's alphabet: a big number, its leading zero bytes as ``1``)."""
    number = 0
    for char in run:
        number = number * 58 + _B58.index(char)
    zeros = len(run) - len(run.lstrip("1"))
    return b"\0" * zeros + number.to_bytes((number.bit_length() + 7) // 8, "big")


def packed85(text: str, start: int, end: int) -> Iterator[tuple[int, bytes]]:
    """The word ``text[start:end]`` (less the blank, ``=``, ``:``, quote or bracket before
    it) decoded as Ascii85, b85 or Z85, if its first group (5 characters) decodes to the
    start of compressed data (gzip, zlib, bzip2, xz): the whole word decoded only then."""
    at = start if text[start] in FIRSTS85 else start + 1
    for alphabet, decode in BASE85:
        number = 0
        for char in text[at:at + 5]:
            digit = alphabet.get(char)
            if digit is None:
                break
            number = number * 85 + digit
        else:
            if number < 1 << 32 and _packed_start(number.to_bytes(4, "big")):
                data = decode(text[at:end].rstrip("\"',;)]"))
                if data is not None:
                    yield at, data


def _packed_start(head: bytes) -> bool:
    """Whether 4 bytes start as gzip, zlib, bzip2 or xz data does."""
    return head[:2] == b"\x1f\x8b" or head[:3] == b"BZh" or head == b"\xfd7zX" or (
        head[0] == 0x78 and (head[0] << 8 | head[1]) % 31 == 0)


def _a85(word: str) -> bytes | None:
    if word.translate(_OUT_A85):  # (a character no base85 has: no Python decoding)
        return None
    with contextlib.suppress(ValueError):
        return base64.a85decode(word)
    return None


def _b85(word: str) -> bytes | None:
    if word.translate(_OUT_B85):
        return None
    with contextlib.suppress(ValueError):
        return base64.b85decode(word)
    return None


def _z85(word: str) -> bytes | None:
    if word.strip(_Z85_ALPHABET):
        return None
    return _b85(word.translate(_Z85_TO_B85))


BASE85 = [({c: i for i, c in enumerate(alphabet)}, decode) for alphabet, decode in (
    (_A85_ALPHABET, _a85), (_B85_ALPHABET, _b85), (_Z85_ALPHABET, _z85))]
# the first characters a base-85 group of compressed data's first 4 bytes can have: the
# top digit of the numbers gzip, bzip2, zlib and xz data start with
FIRSTS85 = frozenset(alphabet[digit] for alphabet in (_A85_ALPHABET, _B85_ALPHABET,
                                                       _Z85_ALPHABET)
                      for low, high in ((0x1F8B << 16, 0x1F8C << 16),
                                        (0x425A68 << 8, 0x425A69 << 8),
                                        (0x78 << 24, 0x79 << 24), (0xFD377A58, 0xFD377A59))
                      for digit in range(low // 85 ** 4, (high - 1) // 85 ** 4 + 1))


def uu_blocks(text: str, start: int, end: int) -> Iterator[tuple[int, int, bytes]]:
    """The blocks of whole uuencode lines (each as long as its first character says) between
    ``start`` and ``end``, 8 bytes or more each, decoded."""
    block, at, data = start, start, bytearray()
    while at < end:
        stop = text.find("\n", at, end)
        stop = end if stop < 0 else stop
        line = text[at:stop].rstrip("\r")
        size = ord(line[0]) - 32
        if len(line) == 1 + 4 * -(-size // 3):
            with contextlib.suppress(binascii.Error):
                data += binascii.a2b_uu(line)
                at = stop + 1
                continue
        if len(data) >= 8:
            yield block, at - 1, bytes(data)  # (without its last line's break)
        block, at, data = stop + 1, stop + 1, bytearray()
    if len(data) >= 8:
        yield block, min(at - 1, end), bytes(data)


def uudecode(lines: str) -> bytes:
    """The bytes of uuencode's lines (a line that is not one is left out)."""
    out = bytearray()
    for line in lines.splitlines():
        with contextlib.suppress(binascii.Error):
            out += binascii.a2b_uu(line)
    return bytes(out)
