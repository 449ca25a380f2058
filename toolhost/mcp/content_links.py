"""Content blocks a client's negotiated revision has no type for.

``resource_link`` came with 2025-06-18: a client built for 2024-11-05 or 2025-03-26 checks a
tool's content (and a prompt's) against a union of types without it, so one link can make
the whole answer unreadable there (an SDK of those revisions fails to validate it). Such a
client gets each link as a text block naming it instead; every other client gets the answer
as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["LINKLESS_VERSIONS", "without_links"]

LINKLESS_VERSIONS = frozenset({"2024-11-05", "2025-03-26"})


def _as_text(block: Any) -> Any:
    if not isinstance(block, Mapping) or block.get("type") != "resource_link":
        return block
    uri, name = block.get("uri"), block.get("name")
    text = f"{name}: {uri}" if isinstance(name, str) and name and name != uri else str(uri)
    description = block.get("description")
    if isinstance(description, str) and description:
        text += f" ({description})"
    return {"type": "text", "text": text}


def without_links(method: str, result: dict[str, Any]) -> dict[str, Any]:
    """``result`` of ``method`` with each ``resource_link`` block as a text block (a new
    dict when one changed: answers share pre-built dicts, never mutated)."""
    if method == "tools/call":
        content = result.get("content")
        if isinstance(content, list) and any(
                isinstance(b, Mapping) and b.get("type") == "resource_link" for b in content):
            return {**result, "content": [_as_text(b) for b in content]}
    elif method == "prompts/get":
        messages = result.get("messages")
        if isinstance(messages, list) and any(
                isinstance(m, Mapping) and isinstance(m.get("content"), Mapping)
                and m["content"].get("type") == "resource_link" for m in messages):
            return {**result, "messages": [
                {**m, "content": _as_text(m.get("content"))} if isinstance(m, Mapping) else m
                for m in messages]}
    return result
