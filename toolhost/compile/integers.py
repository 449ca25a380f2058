"""Integral floats where the inputSchema says ``integer``: made ints before any backend sees
them.

JSON Schema's ``integer`` admits any integral number, so ``2.0`` and ``1e+20`` (which JSON
readers hand over as Python floats) pass validation for an ``int`` parameter. A python tool
would receive a float its annotation does not allow (``"-" * n`` fails), and an http tool's
JSON body would carry ``2.0`` or ``1e+20`` to a service that expects an integer. So each value
at a position the schema types ``integer`` (top-level properties, array items and
``prefixItems``, object properties and ``additionalProperties``, ``allOf`` members, local
``$ref``\\ s) that arrived as a float becomes an int: the integer the JSON text wrote, as the
argv and URL renderings read it (``templating.number_text``): ``1e16`` is 10**16 and ``1e300``
is 10**300, not the binary float's nearest neighbour.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from toolhost.compile.pyunions import admits, schema_kinds

__all__ = ["integer_normalizer", "integral"]

EXACT = 2 ** 53  # below this, int(value) is the integer; above, the shortest decimal says it
_DEPTH = 64
_PLAIN = frozenset({str, int, bool, type(None)})  # top-level values with nothing to convert


def integral(value: float) -> int:
    """The integer an integral float was written as (``1e16`` -> 10**16)."""
    if abs(value) < EXACT:
        return int(value)
    from decimal import Decimal

    return int(Decimal(float.__repr__(value)))


def integer_normalizer(schema: Mapping[str, Any]) -> Callable[[Mapping[str, Any]], Any]:
    """A function that returns the arguments with integral floats made ints where ``schema``
    says ``integer`` (the same mapping when there is nothing to change). Whether the schema
    has an ``integer`` at all is looked up at the first call with a float, list or object in
    it (about 8 us a schema: a thousand tools load without it)."""
    has_integer: list[bool] = []

    def normalize(arguments: Mapping[str, Any]) -> Any:
        for value in arguments.values():  # the usual call holds no float, list or object
            if type(value) not in _PLAIN:
                break
        else:
            return arguments
        if not has_integer:
            has_integer.append(_mentions_integer(schema))
        return _walk(arguments, schema, schema, "", 0) if has_integer[0] else arguments
    return normalize


def _mentions_integer(schema: Mapping[str, Any]) -> bool:
    try:
        return '"integer"' in json.dumps(schema, default=str)
    except (TypeError, ValueError, RecursionError):
        return True  # the walk is bounded and skips what is not a schema


def _resolve(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = schema.get("$ref")
    for _ in range(_DEPTH):
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return schema
        node: Any = root
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            node = node.get(part) if isinstance(node, Mapping) else None
        if not isinstance(node, Mapping):
            return schema
        schema, ref = node, node.get("$ref")
    return schema


def _is_integer(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "integer":
        return True
    return isinstance(kind, list) and "integer" in kind and "number" not in kind


def _member(value: Any, members: list[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The first member of a union admitting ``value``'s kind, as the python converter picks
    it (``toolhost.compile.pyunions``); an object goes to a closed member that has its keys
    first."""
    fitting = [m for m in members if admits(schema_kinds(m), value)]
    if isinstance(value, Mapping):
        for m in fitting:
            props = m.get("properties")
            if (m.get("additionalProperties") is False and isinstance(props, Mapping)
                    and all(k in props for k in value)):
                return m
    return fitting[0] if fitting else None


def _walk(value: Any, schema: Any, root: Mapping[str, Any], where: str, depth: int) -> Any:
    if not isinstance(schema, Mapping) or depth > _DEPTH:
        return value
    schema = _resolve(schema, root)
    if type(value) is float and _is_integer(schema):
        if math.isfinite(value) and value.is_integer():  # else validation refuses it
            return integral(value)
        return value
    for sub in schema.get("allOf") or ():
        value = _walk(value, sub, root, where, depth + 1)
    members = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(members, list):  # a Union: the member the value's kind picks
        member = _member(value, [_resolve(m, root) for m in members if isinstance(m, Mapping)])
        if member is not None:
            value = _walk(value, member, root, where, depth + 1)
    if isinstance(value, list):
        prefix = schema.get("prefixItems") or []
        items = schema.get("items")
        out = [_walk(v, prefix[i] if i < len(prefix) else items, root, f"{where}[{i}]",
                     depth + 1) for i, v in enumerate(value)]
        return value if all(a is b for a, b in zip(out, value, strict=True)) else out
    if isinstance(value, Mapping):
        props = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        changed = {}
        for key, item in value.items():
            sub = props.get(key, extra) if isinstance(props, Mapping) else extra
            new = _walk(item, sub, root, f"{where}.{key}" if where else str(key), depth + 1)
            if new is not item:
                changed[key] = new
        return {**value, **changed} if changed else value
    return value
