"""One immutable tool set: the name index and every tools/list page, built once.

A reload builds a new ``ToolSet`` and swaps it in with one assignment, so a request sees
either the old set or the new one, never a mixture; a running call keeps the
``CompiledTool`` it looked up.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

try:  # what hashlib.blake2b is, without loading OpenSSL's _hashlib (~2.5 ms of serve's start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython always has _blake2
    from hashlib import blake2b

from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.redaction.process import scrub_value

__all__ = ["BadCursor", "ToolSet", "decode_anchored", "decode_cursor", "encode_cursor"]

_CURSOR_PREFIX = "toolhost-page:"


class BadCursor(ValueError):
    """A tools/list cursor this server did not hand out."""


def encode_cursor(offset: int, kind: str = "") -> str:
    # Opaque to clients (base64), cheap for us: the offset of the next page, and the list it
    # is of (``kind``; "" for tools/list): a cursor of prompts/list is no cursor of another
    return base64.urlsafe_b64encode(f"{_CURSOR_PREFIX}{kind}{offset}".encode()).decode()


def _shown(cursor: str) -> str:
    # a cursor is the client's text: the error quotes its start, never all of it
    return cut(repr(cursor[:200]), 100)


def decode_cursor(cursor: object, kind: str = "") -> int:
    """The offset ``cursor`` (given by ``encode_cursor`` for the same ``kind``) names."""
    return decode_anchored(cursor, kind, anchored=False)[1]


def decode_anchored(cursor: object, kind: str, *, anchored: bool = True) -> tuple[str, int]:
    """The anchor (16 hex digits: ``encode_cursor(offset, kind + anchor + ":")``) and the
    offset ``cursor`` names; the anchor is "" when not ``anchored``."""
    if not isinstance(cursor, str):
        raise BadCursor(f"cursor must be a string, got {type(cursor).__name__}")
    try:
        text = base64.urlsafe_b64decode(cursor.encode("ascii")).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        raise BadCursor(f"invalid cursor {_shown(cursor)}") from None
    prefix = _CURSOR_PREFIX + kind
    anchor = ""
    if anchored:
        anchor = text[len(prefix):len(prefix) + 16]
        if (len(anchor) != 16 or any(c not in "0123456789abcdef" for c in anchor)
                or text[len(prefix) + 16:len(prefix) + 17] != ":"):
            raise BadCursor(f"invalid cursor {_shown(cursor)}")
        prefix = f"{prefix}{anchor}:"
    digits = text[len(prefix):]
    # ASCII digits only: "²" is a digit to str.isdigit() but not to int()
    if (not text.startswith(prefix) or not digits.isascii() or not digits.isdigit()
            or len(digits) > 18):
        raise BadCursor(f"invalid cursor {_shown(cursor)}")
    return anchor, int(digits)


def _anchor(name: str) -> str:
    return blake2b(name.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


class ToolSet:
    """Tools by bare name plus the pre-built tools/list results (legacy and modern shapes)."""

    __slots__ = ("anchors", "by_name", "descriptors", "modern_extra", "modern_pages",
                 "page_size", "pages", "tools")

    def __init__(self, tools: Sequence[CompiledTool], page_size: int,
                 modern_extra: Mapping[str, Any]) -> None:
        if page_size < 1:
            raise ValueError(f"page_size must be at least 1, got {page_size}")
        by_name: dict[str, CompiledTool] = {}
        for tool in tools:
            if tool.name in by_name:
                raise ValueError(f"duplicate tool name {tool.name!r} in server {tool.server!r}")
            by_name[tool.name] = tool
        self.tools: tuple[CompiledTool, ...] = tuple(tools)
        self.by_name = by_name
        self.page_size = page_size
        # what clients read of a tool carries no secret (a description or a default written
        # with ${GITHUB_TOKEN}); toolhost itself keeps the real defaults
        # (every key: a param may be called "data")
        self.descriptors: tuple[dict[str, Any], ...] = tuple(
            scrub_value(t.descriptor(), frozenset()) for t in tools)
        # pages[i] answers the cursor for offset i * page_size; page 0 answers no cursor.
        # a cursor names the tool its page follows too (16 hex digits of its name): after a
        # reload that added or removed tools before that point, the next page starts after
        # that tool where it is now, so no tool is skipped or listed twice
        self.anchors: tuple[str, ...] = tuple(_anchor(t.name) for t in tools)
        self.modern_extra = modern_extra
        self.pages: list[dict[str, Any]] = []
        self.modern_pages: list[dict[str, Any]] = []
        for start in range(0, max(len(self.descriptors), 1), page_size):
            page = self._built(start)
            self.pages.append(page)
            self.modern_pages.append({**page, **modern_extra})

    def _built(self, start: int) -> dict[str, Any]:
        end = start + self.page_size
        page: dict[str, Any] = {"tools": list(self.descriptors[start:end])}
        if end < len(self.descriptors):
            page["nextCursor"] = encode_cursor(end, f"{self.anchors[end - 1]}:")
        return page

    def page(self, cursor: object, *, modern: bool) -> dict[str, Any]:
        """The tools/list result for ``cursor`` (None: the first page)."""
        pages = self.modern_pages if modern else self.pages
        if cursor is None:
            return pages[0]
        anchor, offset = decode_anchored(cursor, "")
        index, rest = divmod(offset, self.page_size)
        if not rest and 0 < index < len(pages) and self.anchors[offset - 1] == anchor:
            return pages[index]  # the list did not change before this page: built once
        moved = next((i + 1 for i, a in enumerate(self.anchors) if a == anchor), None)
        if moved is None and not 0 < offset < len(self.descriptors):
            # A cursor from before a reload that shrank the list: the client re-lists
            # from the start after notifications/tools/list_changed.
            raise BadCursor(f"cursor {_shown(str(cursor))} does not name a page of the current "
                            "tool list")
        page = self._built(offset if moved is None else moved)
        return {**page, **self.modern_extra} if modern else page

    def all_tools_result(self) -> dict[str, Any]:
        """Every tool in one tools/list result (the manifest handed to the CLI)."""
        return {"tools": list(self.descriptors)}
