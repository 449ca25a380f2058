"""The top level of an upstream tool's inputSchema, as reshaping needs it: the arguments.

Generators do not all write the arguments as the root's ``properties``: some name them
through a root ``$ref`` (``{"type": "object", "$ref": "#/definitions/Args", ...}``), others
put them in ``allOf`` parts, and a choice of argument sets is ``anyOf``/``oneOf`` of
``required`` lists. A fixed argument must leave every one of those places (the model never
sees it, and a ``required`` that names it would refuse every call, since the fixed value is
added after the check), and ``defaults``/``params`` must see an argument a root ``$ref``
names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["declared", "inline_root_ref", "strip_fixed", "written_in"]

_MAX_HOPS = 8  # a root $ref that leads to a $ref ...: followed this far
_MAX_DEPTH = 8  # allOf inside anyOf inside ...: object-level parts followed this deep
_NOTES = frozenset({"$defs", "definitions", "$schema", "title", "description", "type"})
_PARTS = ("allOf", "anyOf", "oneOf")
_BRANCHES = ("if", "then", "else")


def _target(root: Mapping[str, Any], ref: Any) -> Any:
    """The subschema a local ``#/$defs/X`` or ``#/definitions/X`` reference names, or None."""
    if not isinstance(ref, str):
        return None
    for where in ("$defs", "definitions"):
        prefix = f"#/{where}/"
        if ref.startswith(prefix):
            name = ref[len(prefix):].replace("~1", "/").replace("~0", "~")
            defs = root.get(where)
            if isinstance(defs, Mapping) and "/" not in ref[len(prefix):]:
                found = defs.get(name)
                return found if isinstance(found, Mapping) else None
    return None


def inline_root_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """A root that is (or starts with) a local ``$ref``, with what it names written in: the
    root's own keys beside the ``$ref`` win, its ``$defs``/``definitions`` stay (so references
    inside still resolve; the definition itself is left as it is, for recursive uses)."""
    followed: list[str] = []
    for _ in range(_MAX_HOPS):
        ref = schema.get("$ref")
        found = _target(schema, ref)
        if found is None:
            break
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        if set(rest) & set(found) - _NOTES:  # both say it: they apply together, left so
            break
        followed.append(str(ref))
        schema = {**{k: v for k, v in found.items() if k not in ("$defs", "definitions")},
                  **rest}
    if followed:  # a definition only the root used is not shown twice (fixed ones inside)
        text = json.dumps(schema, default=str)
        for ref in followed:
            if f'"{ref}"' not in text:
                where, _, name = ref[2:].partition("/")
                defs = schema.get(where)
                if isinstance(defs, Mapping):
                    defs = {k: v for k, v in defs.items() if k != name}
                    schema = {**schema, where: defs} if defs else {
                        k: v for k, v in schema.items() if k != where}
    return schema


def strip_fixed(schema: dict[str, Any], fixed: Iterable[str]) -> dict[str, Any]:
    """``schema`` (an object-level schema: the root) without the fixed arguments in the
    ``properties``, ``required`` and ``dependentRequired`` of its ``allOf``/``anyOf``/
    ``oneOf``/``if``/``then``/``else`` parts (a part that is a local ``$ref`` is written in
    first, so the shared definition is left alone). The root's own ``properties`` and
    ``required`` are reshaping's (reshape._schema)."""
    keys = frozenset(fixed)
    if not keys:
        return schema
    return _strip(schema, schema, keys, 0, top=True)


def _strip(root: Mapping[str, Any], part: dict[str, Any], keys: frozenset[str], depth: int,
           *, top: bool = False) -> dict[str, Any]:
    out = dict(part)
    if not top:
        props = out.get("properties")
        if isinstance(props, Mapping) and keys & set(props):
            out["properties"] = {k: v for k, v in props.items() if k not in keys}
        req = out.get("required")
        if isinstance(req, list) and keys & set(map(str, req)):
            out["required"] = [r for r in req if r not in keys]
            if not out["required"]:
                del out["required"]
    dep = out.get("dependentRequired")
    if isinstance(dep, Mapping):
        out["dependentRequired"] = {k: [r for r in v if r not in keys] if isinstance(v, list)
                                    else v for k, v in dep.items() if k not in keys}
    if depth >= _MAX_DEPTH:
        return out
    for name in _PARTS:
        parts = out.get(name)
        if isinstance(parts, list):
            out[name] = [_strip(root, written_in(root, p), keys, depth + 1)
                         if isinstance(p, Mapping) else p for p in parts]
    for name in _BRANCHES:
        p = out.get(name)
        if isinstance(p, Mapping):
            out[name] = _strip(root, written_in(root, p), keys, depth + 1)
    return out


def written_in(root: Mapping[str, Any], part: Mapping[str, Any]) -> dict[str, Any]:
    """A part that is a local ``$ref`` (followed a few hops) with its definition written in."""
    out = dict(part)
    for _ in range(_MAX_HOPS):
        found = _target(root, out.get("$ref"))
        if found is None:
            break
        rest = {k: v for k, v in out.items() if k != "$ref"}
        if set(rest) & set(found) - _NOTES:  # both say it: they apply together, left so
            break
        out = {**found, **rest}
    return out


def declared(root: Mapping[str, Any]) -> frozenset[str] | None:
    """The argument names an object-level ``root`` declares: its ``properties`` and those of
    its ``allOf``/``anyOf``/``oneOf``/``if``/``then``/``else`` parts; None when it may
    take keys it does not name on purpose (no properties named anywhere, a
    ``patternProperties``, an ``additionalProperties`` written as ``true`` or a schema, a
    ``$ref`` left as it is), so that an undeclared key cannot be said to be ignored."""
    names: set[str] = set()
    todo: list[tuple[Mapping[str, Any], int]] = [(root, 0)]
    while todo:
        part, depth = todo.pop()
        extra = part.get("additionalProperties")
        if extra is True or isinstance(extra, Mapping) or any(
                k in part for k in ("patternProperties", "$ref", "$dynamicRef",
                                    "dependentSchemas", "dependencies")):
            return None  # (a $ref written in would be gone: one left names what is unknown)
        props = part.get("properties")
        if isinstance(props, Mapping):
            names.update(map(str, props))
        if depth >= _MAX_DEPTH:
            continue
        for name in _PARTS:
            parts = part.get(name)
            todo += [(written_in(root, p), depth + 1) for p in parts
                     if isinstance(p, Mapping)] if isinstance(parts, list) else []
        todo += [(written_in(root, part[n]), depth + 1) for n in _BRANCHES
                 if isinstance(part.get(n), Mapping)]
    return frozenset(names) or None
