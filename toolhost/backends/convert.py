"""Turn what a backend produced (a Python value, bytes) into a ``ToolResult``.

The mapping a Python tool's return value goes through:

=====================================  =====================================================
returned                               result
=====================================  =====================================================
``ToolResult``                         as is
``None``                               one empty text block
``str``                                one text block
``bytes`` of a known image type        one image block (base64), by magic number
``bytes`` of a known audio type        one audio block (WAV, MP3, Ogg, FLAC, M4A)
other ``bytes``: UTF-8 text            one text block
other ``bytes``                        an embedded resource with a base64 ``blob``
``toolhost.content`` objects, or a     their content blocks in order (strings are text
list of them mixed with strings        blocks)
dict / list / tuple / dataclass /      ``structuredContent`` plus its JSON as text (a list is
pydantic model                         structured as ``{"result": [...]}``)
int / float / bool                     its JSON as text
=====================================  =====================================================
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from toolhost.backends.sniff import sniff
from toolhost.content import is_content
from toolhost.results import ToolResult

__all__ = ["bytes_result", "image_mime", "image_result", "jsonify", "to_result"]

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def image_mime(data: bytes) -> str | None:
    """The image MIME type of ``data`` by its magic number (PNG, JPEG, GIF, WebP), or None."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def bytes_result(data: bytes, mime: str | None = None) -> ToolResult:
    """Bytes as the block their type calls for: image, audio, text, or a blob resource."""
    kind, sniffed = sniff(data)
    mime = mime or sniffed
    if mime.startswith("image/") and kind != "text":
        return image_result(data, mime)
    if mime.startswith("audio/"):
        block = {"type": "audio", "data": base64.b64encode(data).decode("ascii"),
                 "mimeType": mime}
        return ToolResult(content=(block,))
    if kind == "text" and (mime.startswith("text/") or mime == "application/json"):
        return ToolResult.text(data.decode("utf-8"))
    digest = hashlib.sha256(data).hexdigest()[:16]
    resource = {"uri": f"toolhost://result/{digest}", "mimeType": mime,
                "blob": base64.b64encode(data).decode("ascii")}
    return ToolResult(content=({"type": "resource", "resource": resource},))


def image_result(data: bytes, mime: str) -> ToolResult:
    block = {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}
    return ToolResult(content=(block,))


def jsonify(value: Any) -> Any:
    """Plain JSON data from dataclasses, pydantic models, tuples, sets and nested mappings."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonify(getattr(value, f.name)) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model
        return dump(mode="json")
    if isinstance(value, Mapping):
        return {str(k): jsonify(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonify(v) for v in value]
    if isinstance(value, enum.Enum):
        return jsonify(value.value)
    return str(value)


def to_result(value: Any) -> ToolResult:
    """Map a Python tool's return value to a result (see the module docstring)."""
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult.text("")
    if isinstance(value, str):
        return ToolResult.text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes_result(bytes(value))
    if is_content(value):
        return ToolResult(content=(value.block(),))
    if isinstance(value, (list, tuple)) and value and any(is_content(v) for v in value):
        return ToolResult(content=tuple(
            v.block() if is_content(v) else {"type": "text", "text": v if isinstance(v, str)
                                             else json.dumps(jsonify(v), ensure_ascii=False)}
            for v in value))
    if isinstance(value, (bool, int, float)):
        return ToolResult.text(json.dumps(value))
    return ToolResult.json(jsonify(value))
