"""An upstream's ``resources/read`` and ``prompts/get`` answers, cut like a tool's answer.

What an imported server's resource or prompt says reaches the model as a tool's answer
would (under ``run`` the CLI hands a read to the model), so it gets the same 40,000-character
output cut (``toolhost.compile.shaping.cut_text``, embedded resources counted): texts are cut
in order with the usual note, and a blob that does not fit whole is replaced by a text saying
so. An image or audio block of a prompt counts its base64 too. The 10-million-character bound
on a whole answer (``passthrough.MAX_CONTENT_CHARS``) still refuses anything bigger before it
is looked at.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.compile.shaping import cut_text
from toolhost.compile.tool import DEFAULT_MAX_OUTPUT_CHARS
from toolhost.results import ToolResult

__all__ = ["MAX_CHARS", "cut_contents", "cut_messages"]

MAX_CHARS = DEFAULT_MAX_OUTPUT_CHARS


def cut_contents(contents: list[dict[str, Any]], uri: str,
                 max_chars: int = MAX_CHARS) -> list[dict[str, Any]]:
    """The ``contents`` of a resources/read, cut to ``max_chars`` characters in all."""
    blocks = tuple({"type": "resource", "resource": dict(entry)} for entry in contents)
    kept = cut_text(ToolResult(content=blocks), max_chars, resources=True)
    if kept.content is blocks:
        return contents
    out: list[dict[str, Any]] = []
    for block in kept.content:
        if block.get("type") == "resource":
            out.append(dict(block["resource"]))
        else:  # the note that stands for a blob left out
            out.append({"uri": uri, "mimeType": "text/plain", "text": str(block.get("text"))})
    return out


def _as_block(content: Any) -> dict[str, Any]:
    """A prompt message's content as a block ``cut_text`` measures: an image or audio block
    is measured (and left out whole when it does not fit) as an embedded blob."""
    if isinstance(content, Mapping) and content.get("type") in ("image", "audio"):
        return {"type": "resource", "resource": {"uri": f"({content.get('type')})",
                                                 "blob": str(content.get("data", "")),
                                                 "original": dict(content)}}
    return dict(content) if isinstance(content, Mapping) else {"type": "text",
                                                               "text": str(content)}


def _from_block(block: Mapping[str, Any]) -> dict[str, Any]:
    inner = block.get("resource")
    if block.get("type") == "resource" and isinstance(inner, Mapping) and "original" in inner:
        return dict(inner["original"])
    return dict(block)


def _size(block: Mapping[str, Any]) -> int:
    inner = block.get("resource")
    if block.get("type") == "text":
        return len(str(block.get("text", "")))
    if block.get("type") == "resource" and isinstance(inner, Mapping):
        return len(str(inner.get("text", inner.get("blob", ""))))
    return 0  # a resource_link and the like: cut as a listing's fields already


def cut_messages(answer: dict[str, Any], max_chars: int = MAX_CHARS) -> dict[str, Any]:
    """A prompts/get answer with its messages' texts (embedded resources, images and audio
    counted) cut to ``max_chars`` characters in all: the message that does not fit is cut
    with the note (an image, audio or blob that does not fit whole becomes the note), and
    the messages after it are left out."""
    messages = answer.get("messages")
    if not isinstance(messages, list):
        return answer
    blocks = [_as_block(m.get("content") if isinstance(m, Mapping) else m) for m in messages]
    if sum(map(_size, blocks)) <= max_chars:
        return answer
    out, used = [], 0
    for message, block in zip(messages, blocks, strict=True):
        body = dict(message) if isinstance(message, Mapping) else {"role": "user"}
        size = _size(block)
        if used + size <= max_chars:
            out.append(message)
            used += size
            continue
        [kept] = cut_text(ToolResult(content=(block,)), max_chars - used,
                          resources=True).content
        out.append({**body, "content": _from_block(kept)})
        break
    return {**answer, "messages": out}
