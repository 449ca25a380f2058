"""A secret in an image's, audio's or blob's bytes: the block is hidden whole.

A tool result's binary data (the base64 ``data`` of an image or audio block) is left as it
is by redaction: masking part of it would break the file. But the bytes can hold a secret as
it is: a PNG's text chunk, an MP3's tag, an SVG (which is text), or a tool that calls any
base64 an image. Its base64 then holds the secret's base64 at some alignment (one of the
secret's forms), and the model, the client and the Claude CLI's transcript get it. Such a
block cannot be shown with the secret cut out of it, so it is replaced whole by a text block
saying so (fail closed); a block whose bytes hold no secret is left byte for byte.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import functools
import re
import zlib
from collections.abc import Callable, Mapping
from typing import Any

from toolhost.redaction import MASK, Redactor
from toolhost.redaction.values import BINARY_KEYS

__all__ = ["MIN_RAW", "MIN_SPAN", "holds_secret", "without_secret_data"]

MIN_SPAN = 12  # characters of base64 that spell a secret, at least, to hide binary data
MIN_RAW = 5  # bytes of a secret looked for as they are (4: 1 MB holds one by chance in 4,000)
_MAX_STREAMS = 64  # compressed chunks or streams of one file inflated
_STREAM = re.compile(rb"stream\r?\n(?=x)")
_TEXT_CHUNK = re.compile(rb"[zi]TXt")  # a PNG's compressed text chunks (any file: by name)


def holds_secret(hide: Redactor, data: str) -> bool:
    """Whether base64 ``data`` holds a secret of ``hide``: the secret's base64 at any
    alignment in it (``MIN_SPAN`` characters at least: a secret of 9 bytes or more); its
    bytes as they are (``MIN_RAW`` to 8 bytes: their base64 is too short to tell); or, when
    its bytes are text (an SVG, a text blob), any form of the secret in that text; or in
    what its bytes hold packed (a gzip or zip file, a PNG's compressed text chunks, a PDF's
    streams: ``toolhost.redaction.packed``)."""
    if hide._pattern is None or not data:
        return False
    # (bz2, lzma and the decoders load with the first secret to look for: start-up)
    from toolhost.redaction.packed import strings
    # (a short secret, a PIN, is somewhere in most images' base64 by chance: only a span
    # as long as the base64 of 9 bytes counts there)
    if any(end - start >= MIN_SPAN for start, end in hide._pattern.spans(data)):
        return True
    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return False
    try:
        return bool(hide.spans(raw.decode("utf-8")))
    except UnicodeDecodeError:  # bytes, not text
        pass
    if any(secret in raw for secret in _short(hide)):
        return True
    inner = _inner(raw)
    if inner is None:  # more than can be read: it may hold one (fail closed)
        return True
    return any(hide.spans(strings(piece)) for piece in inner)


@functools.lru_cache(maxsize=8)
def _short(hide: Redactor) -> tuple[bytes, ...]:
    """The secrets of ``MIN_RAW`` to 8 bytes (UTF-8), looked for in a blob's bytes."""
    raws = (secret.encode("utf-8", "surrogatepass") for secret in hide.secrets)
    return tuple(raw for raw in raws if MIN_RAW <= len(raw) < 9)


def _inner(raw: bytes) -> list[bytes] | None:
    """What a file's bytes hold compressed: the whole file unpacked (gzip, zip, ...; None:
    past ``MAX_DECODED``), or a PNG's ``zTXt`` and ``iTXt`` chunks and a PDF's streams,
    each inflated up to ``MAX_DECODED`` bytes (pixels and pages: no secret past it is
    looked for)."""
    from toolhost.redaction.decoded import MAX_DECODED
    from toolhost.redaction.packed import compressed, unpacked

    if compressed(raw):
        return unpacked(raw, MAX_DECODED)
    found: list[bytes] = []
    view = memoryview(raw)  # (no copy of the file per stream)
    for match in _TEXT_CHUNK.finditer(raw):  # (by its name: a length that lies skips none)
        if len(found) >= _MAX_STREAMS:
            break
        # keyword, NUL, then zTXt: method, zlib; iTXt: flag (1: zlib), method, language,
        # NUL, translated keyword, NUL, text
        at = raw.find(b"\0", match.end(), match.end() + 80) + 1
        if at and match.group() == b"iTXt":
            flagged = raw[at:at + 1] == b"\1"
            at = raw.find(b"\0", raw.find(b"\0", at + 2, at + 200) + 1) + 1 if flagged else 0
        if at:
            found.append(_inflated(view[at + (match.group() == b"zTXt"):]))
    for match in _STREAM.finditer(raw):  # a PDF's (or PostScript's) FlateDecode streams
        if len(found) >= _MAX_STREAMS:
            break
        found.append(_inflated(view[match.end():]))
    return found


def _inflated(data: memoryview) -> bytes:
    from toolhost.redaction.decoded import MAX_DECODED

    with contextlib.suppress(zlib.error):
        return zlib.decompressobj().decompress(data, MAX_DECODED)
    return b""


def without_secret_data(value: Any, redact: Callable[[str], str] | Redactor) -> Any:
    """``value`` (a tool result's content blocks, a resource read, a prompt: JSON-like) with
    each mapping whose binary data (``data``, ``blob``) holds a secret of ``redact``'s
    ``Redactor`` replaced by text saying it was hidden: a content block by a text block, a
    resource's contents by text contents of the same URI."""
    hide = redact if isinstance(redact, Redactor) else getattr(redact, "__self__", None)
    if not isinstance(hide, Redactor) or hide._pattern is None:
        return value
    return _walk(value, hide)


def _walk(value: Any, hide: Redactor) -> Any:
    if isinstance(value, Mapping):
        if any(isinstance(value.get(key), str) and holds_secret(hide, value[key])
               for key in BINARY_KEYS):
            return _replaced(value, hide)
        return {key: _walk(item, hide) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_walk(item, hide) for item in value]
    return value


def _replaced(value: Mapping[str, Any], hide: Redactor) -> dict[str, Any]:
    kind = value.get("type")
    what = hide.redact(kind) if isinstance(kind, str) else "blob"
    text = f"{MASK} (this {what} held a secret: hidden)"
    if kind is not None:  # a content block
        return {"type": "text", "text": text}
    uri = value.get("uri")  # a resource's contents
    return {**({"uri": hide.redact(uri)} if isinstance(uri, str) else {}),
            "mimeType": "text/plain", "text": text}
