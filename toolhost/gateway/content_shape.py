"""An upstream's ``resources/read`` and ``prompts/get`` answers, kept to what MCP defines.

Their texts (a content's ``text`` or ``blob``, a message's text) are cut to the tool
answer's 40,000 characters (``toolhost.gateway.content_cut``), but everything around them
was passed on as the upstream wrote it: a content's ``mimeType`` and ``_meta``, a message's
content ``_meta``, an embedded resource's ``uri`` and ``mimeType``, a resource link's fields.
An upstream could send megabytes to the client (and the model) that way beside a one-letter
text. So each part keeps the fields MCP defines for it (the client library's models drop
other keys today; this does not rely on it), cut as a listing's are
(``toolhost.gateway.bounds``), and ``_meta`` goes, as it does from a call's blocks.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.gateway.bounds import MAX_DESCRIPTION, MAX_TITLE, MAX_URI, bound_entry

__all__ = ["shaped_contents", "shaped_prompt"]

_CONTENT_KEYS = ("uri", "mimeType", "text", "blob")
_BLOCK_KEYS = {
    "text": ("type", "text", "annotations"),
    "image": ("type", "data", "mimeType", "annotations"),
    "audio": ("type", "data", "mimeType", "annotations"),
    "resource": ("type", "resource", "annotations"),
    "resource_link": ("type", "uri", "name", "title", "description", "mimeType", "size",
                      "annotations"),
}
_MAX_ANNOTATIONS = 500  # characters of a block's annotations (audience, priority, ...)


def shaped_contents(contents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A read's contents, each with only ``uri``, ``mimeType``, ``text`` and ``blob``."""
    return [_content(entry) for entry in contents if isinstance(entry, Mapping)]


def shaped_prompt(answer: Mapping[str, Any]) -> dict[str, Any]:
    """A prompt's answer with only its ``description`` and ``messages`` (each a ``role`` and
    a ``content`` block of a kind MCP defines, with that kind's fields)."""
    out: dict[str, Any] = {}
    if isinstance(answer.get("description"), str):
        out["description"] = _cut(answer["description"], MAX_DESCRIPTION)
    messages = answer.get("messages")
    out["messages"] = [_message(m) for m in messages if isinstance(m, Mapping)] \
        if isinstance(messages, list) else []
    return out


def _content(entry: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: entry[k] for k in _CONTENT_KEYS if k in entry}
    if "uri" in out:
        out["uri"] = _cut(out["uri"], MAX_URI)
    if "mimeType" in out:
        out["mimeType"] = _cut(out["mimeType"], MAX_TITLE)
    return out


def _message(message: Mapping[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    return {"role": _cut(message.get("role"), MAX_TITLE),
            "content": _block(content) if isinstance(content, Mapping) else content}


def _block(block: Mapping[str, Any]) -> dict[str, Any]:
    keys = _BLOCK_KEYS.get(str(block.get("type")))
    if keys is None:  # a kind MCP does not define: its type alone (the client refuses it)
        return {"type": _cut(block.get("type"), MAX_TITLE)}
    out = {k: block[k] for k in keys if k in block}
    if "mimeType" in out:
        out["mimeType"] = _cut(out["mimeType"], MAX_TITLE)
    if isinstance(out.get("resource"), Mapping):
        out["resource"] = _content(out["resource"])
    if out.get("type") == "resource_link":
        out = {**bound_entry(out), "uri": _cut(out.get("uri"), MAX_URI)}
    notes = out.get("annotations")
    if notes is not None and len(json.dumps(notes, default=str)) > _MAX_ANNOTATIONS:
        del out["annotations"]  # (what they say is a hint; that long, it is not one)
    return out


def _cut(value: Any, limit: int) -> Any:
    return cut(value, limit) if isinstance(value, str) and len(value) > limit else value
