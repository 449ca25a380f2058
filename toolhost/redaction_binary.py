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
from collections.abc import Callable, Mapping
from typing import Any

from toolhost.redaction import MASK, Redactor
from toolhost.redaction_values import BINARY_KEYS

__all__ = ["MIN_SPAN", "holds_secret", "without_secret_data"]

MIN_SPAN = 12  # characters of base64 that spell a secret, at least, to hide binary data


def holds_secret(hide: Redactor, data: str) -> bool:
    """Whether base64 ``data`` holds a secret of ``hide``: the secret's base64 at any
    alignment in it (``MIN_SPAN`` characters at least: a secret of 9 bytes or more), or,
    when its bytes are text (an SVG, a text blob), any form of the secret in that text."""
    if hide._pattern is None or not data:
        return False
    # (a short secret, a PIN, is somewhere in most images' base64 by chance: only a span
    # as long as the base64 of 9 bytes counts there)
    if any(end - start >= MIN_SPAN for start, end in hide._pattern.spans(data)):
        return True
    try:
        text = base64.b64decode(data, validate=False).decode("utf-8")
    except (binascii.Error, ValueError):  # (UnicodeDecodeError too: bytes, not text)
        return False
    return bool(hide.spans(text))


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
