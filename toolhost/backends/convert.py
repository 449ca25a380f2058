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
list of them mixed with strings        blocks); looked for in a list's first 1,000 items
dict / list / tuple / dataclass /      ``structuredContent`` plus its JSON as text (a list is
pydantic model                         structured as ``{"result": [...]}``)
int / float / bool                     its JSON as text
a generator or other iterator          read once, as far as can be kept (``limit`` + 1
                                       items), then as a list
a view, ``range``, ``deque`` ...       a list, at any depth (``dict.keys()``: its keys)
=====================================  =====================================================

A one-time iterator inside a returned value (a generator in a dict) is an error naming it: it
would be read by the size walk and found empty by the encoder.

With ``limit`` (the tool's ``max_output_chars``), a value whose JSON is longer is cut here,
before anything is serialised: only its first ``limit`` characters are ever encoded, and it
loses ``structuredContent`` (the model reads the cut JSON text, with a note). Bytes are decoded
only as far as they are kept; binary data over ``MAX_BINARY_BYTES`` becomes a note.
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import math
from collections.abc import Iterator, Mapping
from typing import Any

from toolhost.backends.sniff import sniff
from toolhost.compile.jsoncut import MAX_ITEMS, json_head, plain, too_long
from toolhost.compile.shaping import cut_head
from toolhost.content import is_content
from toolhost.results import ToolResult

__all__ = ["MAX_BINARY_BYTES", "bytes_result", "image_mime", "image_result", "jsonify",
           "read_json", "to_result"]

CONTENT_SCAN = 1000  # a list is content blocks when one of its first 1,000 items is one
MAX_BINARY_BYTES = 10 * 1024 * 1024  # base64 of more is more than any client shows a model

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def _number(text: str) -> float | str:
    """A JSON number with a fraction or an exponent: a float, or its text when a float cannot
    hold it (``1e400``, 400 digits before the point would read as Infinity)."""
    value = float(text)
    return value if math.isfinite(value) else text


def read_json(data: bytes | str) -> Any:
    """The value of a JSON text another program wrote (a command's ``stdout: json``, an HTTP
    JSON response). A number too large for a float is kept as its text, a string (``"1e400"``),
    never read as Infinity (which JSON cannot carry, so the whole result was lost). ``NaN`` and
    ``Infinity`` written as such are not JSON numbers: they stay what they read as (the result
    is then an error naming where they are). Raises what ``json.loads`` raises."""
    return json.loads(data, parse_float=_number)


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
    import hashlib  # at the first binary result, not at start-up

    digest = hashlib.sha256(data).hexdigest()[:16]
    resource = {"uri": f"toolhost://result/{digest}", "mimeType": mime,
                "blob": base64.b64encode(data).decode("ascii")}
    return ToolResult(content=({"type": "resource", "resource": resource},))


def image_result(data: bytes, mime: str) -> ToolResult:
    block = {"type": "image", "data": base64.b64encode(data).decode("ascii"), "mimeType": mime}
    return ToolResult(content=(block,))


def jsonify(value: Any) -> Any:
    """Plain JSON data from dataclasses, pydantic models, tuples, sets, views and nested
    mappings."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, Mapping) and not dataclasses.is_dataclass(value):
        return {str(k): jsonify(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonify(v) for v in value]
    one = plain(value)  # one level, as the encoder's default takes it
    return one if isinstance(one, str) else jsonify(one)


def to_result(value: Any, limit: int | None = None) -> ToolResult:
    """Map a Python tool's return value to a result (see the module docstring); with
    ``limit``, cut what is longer before serialising it. An integer too long to write out
    (Python's digit limit) is an error result naming where it is, not the tool's failure."""
    try:
        return _to_result(value, limit)
    except ValueError as exc:
        if "integer string conversion" not in str(exc):
            raise
        where = _huge_int(value)
        return ToolResult.error(
            "The tool returned a number JSON cannot carry (an integer of more than 4,300 "
            f"digits{f' at {where}' if where else ''}); return it as a string instead.")


def _huge_int(value: Any) -> str:
    """Where the first integer too long to write out is in ``value`` ("" at the top)."""
    todo: list[tuple[Any, str, int]] = [(value, "the top", 0)]
    while todo:
        item, where, depth = todo.pop()
        if type(item) is int and item.bit_length() > 14_000:  # near Python's digit limit
            try:
                str(item)
            except ValueError:
                return where
        if depth >= 100:
            continue
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            item = {f.name: getattr(item, f.name, None) for f in dataclasses.fields(item)}
        if isinstance(item, Mapping):
            todo.extend((v, str(k) if where == "the top" else f"{where}.{k}", depth + 1)
                        for k, v in reversed(list(item.items())))
        elif isinstance(item, (list, tuple, set, frozenset)):
            todo.extend((v, f"{'' if where == 'the top' else where}[{i}]", depth + 1)
                        for i, v in reversed(list(enumerate(item))))
    return ""


def _to_result(value: Any, limit: int | None) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult.text("")
    if isinstance(value, str):
        return ToolResult.text(value)  # cutting a str later is a cheap slice
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _bytes_result(memoryview(value).cast("B"), limit)
    if isinstance(value, Iterator):
        # read once, and no further than can be kept: every item is at least a character
        value = list(itertools.islice(value, (limit or MAX_ITEMS - 1) + 1))
    if is_content(value):
        return ToolResult(content=(value.block(),))
    if isinstance(value, (list, tuple)) and value and any(
            is_content(v) for v in itertools.islice(value, CONTENT_SCAN)):
        return ToolResult(content=tuple(
            v.block() if is_content(v) else {"type": "text", "text": v if isinstance(v, str)
                                             else json.dumps(jsonify(v), ensure_ascii=False)}
            for v in value))
    if isinstance(value, (bool, int, float)):
        return ToolResult.text(json.dumps(value))
    if limit is not None and too_long(value, limit):
        return ToolResult.text(cut_head(json_head(value, limit), limit, exact=False))
    return ToolResult.json(jsonify(value))


def _bytes_result(data: memoryview, limit: int | None) -> ToolResult:
    """``bytes_result``, but text longer than ``limit`` is decoded only as far as it is kept,
    and binary data over ``MAX_BINARY_BYTES`` becomes a note."""
    if limit is None or len(data) <= 4 * limit:  # UTF-8: at most 4 bytes a character
        return bytes_result(bytes(data))
    head = bytes(data[:max(4 * limit, 8192)])
    kind, mime = sniff(head)
    for trim in range(1, 4):  # the head may end inside a character
        if kind != "binary" or b"\x00" in head[:8192]:
            break
        kind, mime = sniff(head[:-trim])
    if kind == "text":
        text = head.decode("utf-8", errors="ignore")[:limit]
        return ToolResult.text(cut_head(text, len(data) // 4, exact=False))
    if len(data) > MAX_BINARY_BYTES:
        return ToolResult.text(f"[toolhost: {len(data):,} bytes of {mime} were left out: "
                               f"binary results over {MAX_BINARY_BYTES:,} bytes are not passed "
                               "on. Ask for a smaller one.]")
    return bytes_result(bytes(data))
