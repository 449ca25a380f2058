"""``params:`` over an imported argument may only tighten it.

``tools.<name>.params.<arg>`` is laid over the upstream's (or the OpenAPI document's) schema
of that argument, key by key, so a key it names replaces the upstream's. The docs promise
"tighter than the upstream's own schema"; a bound that is looser (``maximum: 1000`` over
``maximum: 100``), an ``enum`` with values the upstream's lacks, or another ``type`` would
show the model a schema the upstream does not accept (toolhost's own check then lets
through what the upstream was said to refuse). Such a key is a located problem naming both
values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut

__all__ = ["looser", "part_default", "parts"]

_UPPER = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_LOWER = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _types(value: Any) -> set[str] | None:
    if isinstance(value, str):
        return {value}
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return set(value)
    return None


_MAX_PARTS = 64  # allOf parts (and the $refs they name) followed for one argument


def parts(root: Mapping[str, Any], schema: Any) -> list[Mapping[str, Any]]:
    """``schema`` and every schema that applies to the same value with it: its ``allOf``
    parts and what a local ``$ref`` (``#/$defs/X``, ``#/definitions/X`` of ``root``) names,
    followed through each other (bounded; each once). A bound, an ``enum`` or a ``default``
    written in one of them holds as if written at the top."""
    found: list[Mapping[str, Any]] = []
    todo = [schema]
    while todo and len(found) < _MAX_PARTS:
        node = todo.pop(0)
        if not isinstance(node, Mapping) or any(node is seen for seen in found):
            continue
        found.append(node)
        ref = node.get("$ref")
        if isinstance(ref, str):
            todo.append(_local(root, ref))
        more = node.get("allOf")
        if isinstance(more, list):
            todo += more
    return found


def _local(root: Mapping[str, Any], ref: str) -> Any:
    for prefix in ("#/$defs/", "#/definitions/"):
        if ref.startswith(prefix):
            defs = root.get(prefix[2:-1])
            name = ref[len(prefix):].replace("~1", "/").replace("~0", "~")
            return defs.get(name) if isinstance(defs, Mapping) else None
    return None


def part_default(root: Mapping[str, Any], schema: Any) -> tuple[bool, Any]:
    """The ``default`` that holds for ``schema``: its own, else the first one of its
    ``allOf`` parts or a ``$ref``'d schema (``parts``), as (found, value)."""
    for part in parts(root, schema):
        if "default" in part:
            return True, part["default"]
    return False, None


def looser(upstream: Any, tighter: Mapping[str, Any],
           root: Mapping[str, Any] | None = None) -> tuple[str, str] | None:
    """The first key of ``tighter`` that loosens (or changes the kind of) ``upstream``'s
    schema of the argument, or of one of its ``allOf`` parts or ``$ref``'d schemas (within
    ``root``), as (key, why); None when every key it shares tightens or keeps."""
    for part in parts(root or {}, upstream):
        wrong = _looser(part, tighter)
        if wrong is not None:
            return wrong
    return None


def _looser(upstream: Mapping[str, Any], tighter: Mapping[str, Any]) -> tuple[str, str] | None:
    for key, value in tighter.items():
        if key not in upstream:
            continue
        old = upstream[key]
        if key in _UPPER and _number(old) and _number(value) and value > old:
            return key, f"{value!r} is looser than the upstream's {old!r}"
        if key in _LOWER and _number(old) and _number(value) and value < old:
            return key, f"{value!r} is looser than the upstream's {old!r}"
        if key == "enum" and isinstance(old, list) and isinstance(value, list):
            extra = [v for v in value if v not in old]
            if extra:
                return key, (f"{cut(repr(extra[0]), 60)} is not one of the upstream's values "
                             f"({cut(', '.join(map(repr, old)), 120)})")
        if key == "type":
            before, after = _types(old), _types(value)
            # integer within number is a tightening; anything else new is a change of kind
            if before is not None and after is not None and \
                    not all(t in before or (t == "integer" and "number" in before)
                            for t in after):
                return key, (f"{cut(repr(value), 60)} is not the upstream's type "
                             f"({cut(repr(old), 60)})")
    return None
