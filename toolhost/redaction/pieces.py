"""A secret a piece at a time in base64 or base32: each piece padded (the last maybe not),
between separators (``cw== aw== LQ==``, ``["c2stbA==", "aXZlLQ==", ...]``), URL-encoded
too; each piece decoded and their bytes joined (for ``toolhost.redaction.decoded``).
"""

from __future__ import annotations

import base64
import binascii
import re
import urllib.parse
from collections.abc import Iterator

__all__ = ["BASE32", "PIECES", "joined_pieces"]

# a piece at a time in base64 or base32 (each piece padded, the last maybe not), 4 or more
# (each piece URL-encoded too: ``c2stbGk%3D``, ``+`` and ``/`` as ``%2B`` and ``%2F``)
_PIECE_CHAR = r"(?:[A-Za-z0-9+/_-]|%2[bBfF])"
_PAD = r"(?:=|%3[dD])"
PIECES = (rf"(?:{_PIECE_CHAR}{{2,}}{_PAD}{{1,6}}[ \t\r\n,;:\"'|&]{{0,4}}){{3,}}"
           rf"{_PIECE_CHAR}{{2,}}{_PAD}{{0,6}}")
_PIECE = re.compile(rf"{_PIECE_CHAR}+{_PAD}*")
BASE32 = re.compile(r"[A-Z2-7]+")


def joined_pieces(run: str) -> Iterator[bytes]:
    """The bytes of a run of pieces each in base64 (or each in base32), joined; a piece
    that is not one (a word after the last) ends what is joined so far."""
    words = _PIECE.findall(run)
    if "%" in run:
        words = [urllib.parse.unquote(word) for word in words]
    first = words[0]  # base32's pieces are padded to 8 characters, of its alphabet
    b32 = len(first) % 8 == 0 and BASE32.fullmatch(first.rstrip("=")) is not None
    for decode in (_piece64, _piece32) if b32 else (_piece64,):
        joined: list[bytes] = []
        for word in words:
            data = decode(word)
            if data is None:
                if len(joined) > 1:
                    yield b"".join(joined)
                joined = []
            else:
                joined.append(data)
        if len(joined) > 1:
            yield b"".join(joined)


def _piece64(word: str) -> bytes | None:
    word = word.rstrip("=")
    try:
        return base64.b64decode(word.replace("-", "+").replace("_", "/")
                                + "=" * (-len(word) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _piece32(word: str) -> bytes | None:
    word = word.rstrip("=")
    try:
        return base64.b32decode(word.upper() + "=" * (-len(word) % 8))
    except (binascii.Error, ValueError):
        return None
