"""Packed data a decoded run may be: compressed (gzip, zlib, raw deflate, bzip2, xz, lzma) or
a zip archive's members, unpacked within a bound (for ``toolhost.redaction.decoded``).

A secret compressed is not one of its forms: its bytes depend on the compressor, its level and
its header. So a decoded run that starts as compressed data is decompressed, and a zip
archive (``PK\\x03\\x04``: also a .docx, .xlsx, .jar) has each member's data inflated
(stored, deflate, bzip2). Raw deflate (``zlib.compress(wbits=-15)``, PHP's ``gzdeflate``,
SAML's redirect binding) has no magic: it is tried on bytes that are not text, and taken only
when the stream ends where a deflate stream does (random bytes fail within a few bytes).

What comes out may be binary (a tar archive, a zip member's file): ``strings`` is its text
view, every control byte a line break, so each printable run is looked at as text (a tar
member's text is surrounded by headers of NULs that made it "not text").
"""

from __future__ import annotations

import bz2
import lzma
import struct
import zlib

__all__ = ["MAX_MEMBERS", "compressed", "strings", "unpacked"]

MAX_MEMBERS = 256  # zip members read from one run (more: unread, hidden whole)
_NESTED = 3  # packings in a packing unpacked (each within the same room)
_ZIP = b"PK\x03\x04"
_ERRORS = (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError, struct.error)
_CONTROLS = bytes(c for c in range(32) if chr(c) not in "\t\n\r") + b"\x7f"
_LINES = bytes.maketrans(_CONTROLS, b"\n" * len(_CONTROLS))


def compressed(data: bytes) -> bool:
    """Whether ``data`` starts as gzip, zlib, bzip2, xz or lzma-alone data, or a zip."""
    return (data[:2] == b"\x1f\x8b" or data[:3] == b"BZh" or data[:6] == b"\xfd7zXZ\x00"
            or (len(data) > 2 and data[0] == 0x78 and (data[0] << 8 | data[1]) % 31 == 0)
            or _lzma_alone(data) or data[:4] == _ZIP)


def _lzma_alone(data: bytes) -> bool:
    # ``.lzma`` (``lzma --format=alone``): lc/lp/pb byte (0x5d: the default), a dictionary
    # size, then the size (-1 when unknown, else a plausible one)
    return (len(data) > 13 and data[0] == 0x5D
            and (data[5:13] == b"\xff" * 8 or int.from_bytes(data[5:13], "little") < 1 << 40))


def unpacked(data: bytes, room: int, raw: bool = False) -> list[bytes] | None:
    """What ``data`` holds packed: ``[]`` when it is not packed data, else the unpacked bytes
    (one piece, or a zip's members); None when they hold more than ``room`` bytes (a bomb:
    unread). ``raw``: also try raw deflate (for bytes that are not text)."""
    pieces = _unpacked(data, room, raw)
    for _ in range(_NESTED):  # packed in packed (a zip gzipped, a .tar.gz zipped)
        if pieces is None or not any(compressed(piece) for piece in pieces):
            break
        left = room - sum(len(piece) for piece in pieces)
        more: list[bytes] = []
        for piece in pieces:
            inner = _unpacked(piece, left) if compressed(piece) else None
            if inner is None or not inner:
                more.append(piece)
                continue
            left -= sum(len(one) for one in inner)
            if left < 0:
                return None
            more += inner
        pieces = more
    return pieces


def _unpacked(data: bytes, room: int, raw: bool = False) -> list[bytes] | None:
    if data[:4] == _ZIP:
        return _members(data, room)
    out = _inflate(data, room + 1)
    if out is None and raw and len(data) >= 8:
        out = _raw_inflate(data, room + 1, whole=True)
    if out is None:
        return []
    return None if len(out) > room else [out]


def _inflate(data: bytes, limit: int) -> bytes | None:
    """``data`` decompressed, ``limit`` bytes at most; None: not compressed data."""
    try:
        if data[:2] == b"\x1f\x8b":
            return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, limit)
        if len(data) > 2 and data[0] == 0x78 and (data[0] << 8 | data[1]) % 31 == 0:
            return zlib.decompressobj().decompress(data, limit)
        if data[:3] == b"BZh":
            return bz2.BZ2Decompressor().decompress(data, limit)
        if data[:6] == b"\xfd7zXZ\x00":
            return lzma.LZMADecompressor().decompress(data, limit)
        if _lzma_alone(data):
            return lzma.LZMADecompressor(lzma.FORMAT_ALONE).decompress(data, limit)
    except _ERRORS:
        return None
    return None


def _raw_inflate(data: bytes, limit: int, whole: bool = False) -> bytes | None:
    """Raw deflate; with ``whole``, None unless the stream ends (or fills ``limit``)."""
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = inflater.decompress(data, limit)
    except zlib.error:
        return None
    if whole and not (inflater.eof or len(out) >= limit):
        return None
    return out


def _members(data: bytes, room: int) -> list[bytes] | None:
    """The data of each member of a zip archive (at each local header, so a member whose
    sizes follow its data, as ``zip -`` writes it, is read too), unpacked."""
    out: list[bytes] = []
    left = room
    at = data.find(_ZIP)
    while at >= 0:
        if len(out) >= MAX_MEMBERS:
            return None
        try:
            flags, method = struct.unpack_from("<HH", data, at + 6)
            size, = struct.unpack_from("<I", data, at + 18)
            name, extra = struct.unpack_from("<HH", data, at + 26)
        except struct.error:
            break
        body = data[at + 30 + name + extra:]
        if flags & 8 or not size:  # (the sizes come after the data)
            size = len(body)
        piece: bytes | None = b""
        try:
            if method == 0:
                piece = body[:min(size, left + 1)]
            elif method == 8:
                piece = _raw_inflate(body[:size], left + 1)
            elif method == 12:
                piece = bz2.BZ2Decompressor().decompress(body[:size], left + 1)
        except _ERRORS:
            piece = b""
        piece = piece or b""
        if len(piece) > left:
            return None
        left -= len(piece)
        out.append(piece)
        at = data.find(_ZIP, at + 4)
    return out


def strings(data: bytes) -> str:
    """``data`` as text to look at: each control byte a line break (its printable runs,
    as ``strings`` shows them, one a line), UTF-8 where it is, U+FFFD where it is not."""
    return data.translate(_LINES).decode("utf-8", "replace")
