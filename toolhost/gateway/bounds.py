"""Every text an upstream writes for the model is bounded.

An upstream's listing is read on every turn, and its answers go to the model whole, so what it
writes is cut the way an imported OpenAPI document is:

- tool, prompt, resource and template descriptions at ``MAX_DESCRIPTION`` (2,000) characters,
  titles (``title``, ``annotations.title``) and names of listed resources at ``MAX_TITLE``
  (200), parameter descriptions (anywhere in an inputSchema, a prompt's arguments) at
  ``MAX_PARAM_DESCRIPTION`` (500), each with a note saying how much was cut
  ("…N more characters");
- a listed tool still longer than ``MAX_TOOL_CHARS`` (an inputSchema of 100,000 characters of
  enum values) is left out, with a warning naming the server and the tool;
- an icon is kept only when its image is written into its ``src`` (``data:image/png;...``,
  jpeg, gif, webp): a client fetches any other ``src`` from the person's machine, at a host
  the upstream chose (a tracker, a cloud metadata address, the LAN), and SVG can hold script;
- in a call's answer, the ``_meta`` of each block is dropped and a ``resource_link``'s fields
  are cut like a listing's; embedded resources (text and blob) count towards the tool's
  ``max_output_chars`` with its text blocks (``toolhost.compile.shaping.cut_text``).

Those texts (descriptions, titles) are shown as they are, too: every character that hides
from a person reading them or makes a line read otherwise (Unicode tag characters, which a
model reads as ASCII a person never sees; bidi overrides; zero-width and other invisible
characters; C0/C1 controls) is written as a visible escape (``toolhost.shown``:
a zero-width joiner too, but between two emoji), so what
the model reads of a tool is what a person reviewing it reads. Names are how things are
called and stay as listed (``toolhost.gateway.reshape`` judges them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut
from toolhost.shown import shown

__all__ = ["MAX_DESCRIPTION", "MAX_PARAM_DESCRIPTION", "MAX_TITLE", "MAX_TOOL_CHARS",
           "bound_blocks", "bound_entry", "bound_schema", "too_big"]

MAX_DESCRIPTION = 2000
MAX_PARAM_DESCRIPTION = 500
MAX_TITLE = 200
MAX_URI = 2000
MAX_TOOL_CHARS = 100_000
_DEPTH = 80  # deeper schemas are refused elsewhere (toolhost.compile.schema_safety)


def _text(value: Any, limit: int) -> Any:
    if not isinstance(value, str):
        return value
    # (then cut: the limit holds as the model reads it); a listing's text is one paragraph
    # of prose: its CR, even before a LF, is escaped too
    value = shown(value).replace("\r", "\\r")
    return cut(value, limit) if len(value) > limit else value


def bound_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """A listed tool, prompt, resource or template with its texts cut (a copy)."""
    out = dict(entry)
    out.pop("_meta", None)
    named = "uri" in out or "uriTemplate" in out  # a resource's name is only shown
    for key, limit in (("description", MAX_DESCRIPTION), ("title", MAX_TITLE),
                       ("name", MAX_TITLE if named else 0), ("mimeType", MAX_TITLE)):
        if key in out and limit:  # (a tool's or prompt's name is how it is called: kept)
            out[key] = _text(out[key], limit)
    if "icons" in out:  # (a client fetches an icon's src: only an image carried inline)
        out["icons"] = [icon for icon in out["icons"] if _inline_image(icon)] \
            if isinstance(out["icons"], list) else []
        if not out["icons"]:
            del out["icons"]
    annotations = out.get("annotations")
    if isinstance(annotations, Mapping):
        out["annotations"] = {k: _text(v, MAX_TITLE) for k, v in annotations.items()}
    arguments = out.get("arguments")  # a prompt's
    if isinstance(arguments, list):
        out["arguments"] = [
            {**a, "description": _text(a.get("description"), MAX_PARAM_DESCRIPTION),
             "title": _text(a.get("title"), MAX_TITLE)} if isinstance(a, Mapping) else a
            for a in arguments]
        out["arguments"] = [{k: v for k, v in a.items() if v is not None}
                            if isinstance(a, Mapping) else a for a in out["arguments"]]
    for key in ("inputSchema", "outputSchema"):
        if isinstance(out.get(key), Mapping):
            out[key] = bound_schema(out[key])
    return out


# an icon an upstream lists is kept only when it is an image written into its src (no client
# fetches anything for it): a src the client would fetch (https://tracker.example/p.png,
# http://169.254.169.254/..., a LAN address) makes the person's machine ask a host the
# upstream chose, when the list is shown; SVG can hold script
_INLINE = ("data:image/png;", "data:image/jpeg;", "data:image/gif;", "data:image/webp;")


def _inline_image(icon: Any) -> bool:
    src = icon.get("src") if isinstance(icon, Mapping) else None
    return isinstance(src, str) and src.isascii() and src[:20].lower().startswith(_INLINE)


def bound_schema(schema: Any, depth: int = 0) -> Any:
    """``schema`` (a copy) with every ``description`` cut at ``MAX_PARAM_DESCRIPTION`` and
    every ``title`` at ``MAX_TITLE`` (a property named so is left alone). Listings are
    parsed JSON: ``dict`` checks, not ``Mapping`` (ten times cheaper, per node of every
    listed schema)."""
    if depth > _DEPTH:
        return schema
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in ("properties", "patternProperties", "$defs", "definitions",
                       "dependentSchemas") and isinstance(value, dict):
                out[key] = {k: bound_schema(v, depth + 1) for k, v in value.items()}
            elif key == "description":
                out[key] = _text(value, MAX_PARAM_DESCRIPTION)
            elif key == "title":
                out[key] = _text(value, MAX_TITLE)
            elif isinstance(value, (dict, list)) and key not in ("enum", "const",
                                                                      "default", "examples"):
                out[key] = bound_schema(value, depth + 1)
            else:
                out[key] = value
        return out
    if isinstance(schema, list):
        return [bound_schema(item, depth + 1) for item in schema]
    return schema


def too_big(entry: Mapping[str, Any]) -> int:
    """How many characters ``entry`` is as JSON, when over ``MAX_TOOL_CHARS`` (else 0)."""
    size = len(json.dumps(entry, ensure_ascii=False, default=str))
    return size if size > MAX_TOOL_CHARS else 0


def bound_blocks(content: Any) -> tuple[Mapping[str, Any], ...]:
    """A call's content blocks with ``_meta`` dropped and a ``resource_link``'s texts cut;
    an embedded resource's ``_meta`` goes too (its text and blob are cut by the output
    limit)."""
    blocks = []
    for block in content if isinstance(content, (list, tuple)) else ():
        if not isinstance(block, Mapping):
            continue
        block = {k: v for k, v in block.items() if k != "_meta"}
        if block.get("type") == "resource_link":
            block = {**bound_entry(block), "uri": _text(block.get("uri"), MAX_URI)}
        elif block.get("type") == "resource" and isinstance(block.get("resource"), Mapping):
            inner = {k: v for k, v in block["resource"].items() if k != "_meta"}
            block["resource"] = {**inner, "uri": _text(inner.get("uri"), MAX_URI),
                                 "mimeType": _text(inner.get("mimeType"), MAX_TITLE)}
            block["resource"] = {k: v for k, v in block["resource"].items() if v is not None}
        blocks.append(block)
    return tuple(blocks)
