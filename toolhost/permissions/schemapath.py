"""What an inputSchema says about one argument path: can it exist, and what type is it.

Used by ``validate`` to prove that a rule's ``when``, ``expr`` or ``rewrite`` path names
something the tool can receive. The walk is conservative: wherever the schema is too clever to
read (``$ref``, ``anyOf``, ``patternProperties``, ...) the answer is "anything", never an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toolhost.compile.pyunions import json_kind
from toolhost.excerpt import cut
from toolhost.permissions.conditions import KeyPath, PointerSegment

__all__ = ["ANYTHING", "Resolved", "describe_types", "numeric", "resolve", "schema_types"]


def numeric(types: set[str]) -> bool:
    """Whether a value of these JSON types can be a number."""
    return bool(types & {"number", "integer"})

ANYTHING: Mapping[str, Any] = {}
_JSON_TYPES = ("object", "array", "string", "number", "integer", "boolean", "null")


@dataclass(frozen=True)
class Resolved:
    """The schema at a path, or why there can be nothing there."""

    schema: Mapping[str, Any] | None  # None: the path cannot exist
    problem: str = ""
    suggestion: str = ""  # the key probably meant (did you mean)


def schema_types(schema: Mapping[str, Any]) -> set[str] | None:
    """The JSON types a value of ``schema`` can have; None when the schema does not say
    (or says it in a way this walk does not read)."""
    if any(k in schema for k in ("anyOf", "oneOf", "allOf", "$ref", "not", "if")):
        return None
    if "enum" in schema and isinstance(schema["enum"], list):
        return {json_kind(v) for v in schema["enum"]}
    if "const" in schema:
        return {json_kind(schema["const"])}
    kind = schema.get("type")
    if isinstance(kind, str):
        kinds = {kind}
    elif isinstance(kind, list) and all(isinstance(k, str) for k in kind):
        kinds = set(kind)
    else:
        return None
    if not kinds <= set(_JSON_TYPES):
        return None
    return kinds


def describe_types(types: set[str]) -> str:
    shown = sorted(types - {"integer"} if "number" in types else types) or ["value"]
    return " or ".join(("an " if t[0] in "aeiou" else "a ") + t for t in shown)


def _step(node: Mapping[str, Any], part: str | int, shown: str) -> Resolved:
    types = schema_types(node)
    key = part if isinstance(part, str) else None
    index = part if isinstance(part, int) else (
        int(part) if isinstance(part, PointerSegment) and part.isdigit() else None)
    if types is not None and key is not None and "object" not in types and (
            index is None or "array" not in types):
        return Resolved(None, f"{shown} is {describe_types(types)}: it has no key "
                        f"{cut(key, 60)!r}")
    if types is not None and key is None and "array" not in types:
        return Resolved(None, f"{shown} is {describe_types(types)}: it has no items")
    if key is not None and (types is None or "object" in types):
        props = node.get("properties")
        props = props if isinstance(props, Mapping) else {}
        if key in props and isinstance(props[key], Mapping):
            return Resolved(props[key])
        extra = node.get("additionalProperties", True)
        if node.get("patternProperties") or extra is True or (
                types is None and "properties" not in node):
            return Resolved(ANYTHING)
        if isinstance(extra, Mapping):
            return Resolved(extra)
        close = _close(key, list(props))
        where = "the arguments have" if shown == "" else f"{shown} has"
        known = ", ".join(sorted(props)) or "none"
        return Resolved(None, f"{where} no key {cut(key, 60)!r} (keys: {cut(known, 300)})",
                        close)
    items = node.get("items")
    if isinstance(items, Mapping):
        return Resolved(items)
    return Resolved(ANYTHING)


def _close(key: str, names: list[str]) -> str:
    lowered = {n.lower(): n for n in names}
    if key.lower() in lowered:
        return lowered[key.lower()]
    from toolhost.typos import close_matches

    found = close_matches(key, names, n=1, cutoff=0.6)
    return found[0] if found else ""


def resolve(schema: Mapping[str, Any], path: KeyPath) -> Resolved:
    """Walk ``path`` through ``schema`` (a tool's inputSchema)."""
    node: Mapping[str, Any] = schema
    shown = ""
    for part in path:
        if not node:
            return Resolved(ANYTHING)
        step = _step(node, part, shown)
        if step.schema is None:
            return step
        node = step.schema
        shown = (f"{shown}[{part}]" if isinstance(part, int)
                 else f"{shown}.{part}" if shown else f"argument {part!r}")
    return Resolved(node)
