"""What a run of bytes is, by its magic number: image, audio, or another binary type.

The standard library has no content sniffing (``imghdr`` and ``sndhdr`` were removed in 3.13)
and the formats a tool returns are few, so the table is ours: a wrong guess costs a
``mimeType``, never safety (the bytes are passed on base64-encoded either way).
"""

from __future__ import annotations

from typing import Literal

__all__ = ["Kind", "sniff"]

Kind = Literal["image", "audio", "text", "binary"]

_PREFIXES: tuple[tuple[bytes, Kind, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image", "image/png"),
    (b"\xff\xd8\xff", "image", "image/jpeg"),
    (b"GIF87a", "image", "image/gif"),
    (b"GIF89a", "image", "image/gif"),
    (b"OggS", "audio", "audio/ogg"),
    (b"fLaC", "audio", "audio/flac"),
    (b"ID3", "audio", "audio/mpeg"),
    (b"%PDF-", "binary", "application/pdf"),
    (b"PK\x03\x04", "binary", "application/zip"),
    (b"\x1f\x8b", "binary", "application/gzip"),
)


def sniff(data: bytes) -> tuple[Kind, str]:
    """``(kind, mime type)`` of ``data``; text is valid UTF-8 with no NUL bytes."""
    riff = data[8:12] if data[:4] == b"RIFF" else b""
    if riff == b"WEBP":
        return "image", "image/webp"
    if riff == b"WAVE":
        return "audio", "audio/wav"
    if data[4:8] == b"ftyp":
        brand = data[8:12]
        if brand in (b"M4A ", b"M4B "):
            return "audio", "audio/mp4"
        return "binary", "video/mp4" if brand[:3] != b"hei" else "image/heic"
    if data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2"):
        return "audio", "audio/mpeg"
    for prefix, kind, mime in _PREFIXES:
        if data.startswith(prefix):
            return kind, mime
    if b"\x00" not in data[:8192]:
        try:
            data.decode("utf-8")
            return "text", "text/plain"
        except UnicodeDecodeError:
            pass
    return "binary", "application/octet-stream"
