"""What ``Draft202012Validator.check_schema`` says about a schema, at a cost linear in its size.

The 2020-12 metaschema checks every subschema against itself (``$dynamicRef: "#meta"``), with
nothing carried from the schema around it: a schema is valid exactly when each of its nodes,
with its own subschemas replaced by ``true``, is. So each node is checked on its own: by
``metacheck.proven_valid`` when it can say yes, else by jsonschema, which also writes the
message; a node met again (the tools of a big config repeat their params, a list repeats its
items) is answered from a cache. jsonschema costs ~0.5 ms a node however small, and checking a
whole schema repeats that for every node: ``anyOf`` of 20,000 ``{$ref: ...}`` items took 13 s,
``type: [1, 1, ...]`` of 20,000 items 0.9 s (each item's failure kept for the message).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.compile.metacheck import proven_valid
from toolhost.excerpt import cut
from toolhost.regex import MAX_PATTERN_CHARS, problem

__all__ = ["metaschema_problem"]

# keywords whose value is one subschema, a mapping of them, a non-empty list of them
_ONE = frozenset({"additionalProperties", "items", "not", "contains", "propertyNames", "if",
                  "then", "else", "unevaluatedItems", "unevaluatedProperties",
                  "contentSchema"})
_MAPS = frozenset({"properties", "$defs", "definitions", "dependentSchemas"})
_LISTS = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})
_JSON_TYPES = 7  # a longer `type` list repeats one or names something else
_TOO_DEEP = 128  # check_schema recursed past Python's limit at about 130 levels

# canonical JSON of a checked node -> check_schema's complaint (where, message) or None.
_CHECKED: dict[str, tuple[str, str] | None] = {}
_CHECKED_LIMIT = 20_000


def metaschema_problem(schema: Any) -> tuple[str, str] | None:
    """The first thing ``check_schema`` rejects in ``schema``, as (where, message), or None.
    ``where`` is the path inside the schema (``properties/n/minimum``)."""
    props = schema.get("properties") if isinstance(schema, Mapping) else None
    for name, sub in (props.items() if isinstance(props, Mapping) else ()):
        deep = _depth(sub)
        if deep > _TOO_DEEP:  # said of the property as before: flatten *it*
            return f"properties/{name}", _too_deep(deep)
    deep = _depth(schema)
    if deep > _TOO_DEEP:
        return "", _too_deep(deep)
    todo: list[tuple[Any, str]] = [(schema, "")]
    while todo:
        node, where = todo.pop()
        local, children = _split(node, where)
        found = _check_local(local)
        if found is not None:
            return "/".join(part for part in (where, found[0]) if part), found[1]
        todo.extend(reversed(children))  # in the order written
    return None


def _too_deep(deep: int) -> str:
    return (f"it nests {deep:,} levels deep, too deeply to be checked (flatten it, or "
            "describe the deep part as a plain object)")


def _split(node: Any, where: str) -> tuple[Any, list[tuple[Any, str]]]:
    """``node`` with its subschemas replaced by ``true``, and those subschemas with paths."""
    if not isinstance(node, Mapping):
        return node, []
    local: dict[str, Any] = {}
    children: list[tuple[Any, str]] = []
    at = f"{where}/" if where else ""
    for key, value in node.items():
        if key in _ONE:
            local[key] = True
            children.append((value, f"{at}{key}"))
        elif key in _MAPS and isinstance(value, Mapping):
            local[key] = {}  # the names are free; each value is a subschema
            children += [(sub, f"{at}{key}/{name}") for name, sub in value.items()]
        elif key == "patternProperties" and isinstance(value, Mapping):
            local[key] = dict.fromkeys(value, True)  # the names must be regexes
            children += [(sub, f"{at}{key}/{name}") for name, sub in value.items()]
        elif key in _LISTS and isinstance(value, list) and value:
            local[key] = [True]  # a non-empty list: one item stands for its length
            children += [(sub, f"{at}{key}/{i}") for i, sub in enumerate(value)]
        else:
            local[key] = value
    return local, children


def _check_local(node: Any) -> tuple[str, str] | None:
    import json

    kinds = node.get("type") if isinstance(node, Mapping) else None
    if type(kinds) is list and len(kinds) > _JSON_TYPES:
        # jsonschema keeps a failure per item for its message: 20,000 items took 0.9 s
        return "type", f"{cut(repr(kinds), 200)} is not valid under any of the given schemas"
    try:
        key = json.dumps(node, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON data: check it every time
        key = None
    if key is not None and key in _CHECKED:
        return _CHECKED[key]
    too_long = _long_pattern(node)
    if too_long is not None:  # said before jsonschema compiles it with re (1 MB: seconds)
        return too_long
    found = None if proven_valid(node) else _jsonschema_says(node)
    if key is not None:
        if len(_CHECKED) >= _CHECKED_LIMIT:
            _CHECKED.clear()
        _CHECKED[key] = found
    return found


def _long_pattern(node: Any) -> tuple[str, str] | None:
    if not isinstance(node, Mapping):
        return None
    pattern = node.get("pattern")
    if isinstance(pattern, str) and len(pattern) > MAX_PATTERN_CHARS:
        return "pattern", problem(pattern)
    props = node.get("patternProperties")
    for name in props if isinstance(props, Mapping) else ():
        if isinstance(name, str) and len(name) > MAX_PATTERN_CHARS:
            return "patternProperties", problem(name)
    return None


def _jsonschema_says(schema: Any) -> tuple[str, str] | None:
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return "/".join(str(p) for p in exc.path), exc.message
    except RecursionError:  # (a node is shallow; kept for a value of a keyword left whole)
        return "", _too_deep(_depth(schema))
    return None


def _depth(value: Any) -> int:
    """How deep ``value`` nests (mappings and lists), counted without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        deepest = max(deepest, depth)
        if isinstance(item, Mapping):
            todo.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, depth + 1) for v in item)
    return deepest
