"""The ``x-mcp-header`` annotations of a tool's inputSchema (SEP-2243): which properties a
2026-07-28 client repeats in an ``Mcp-Param-<token>`` HTTP header, and what makes one
malformed (a client following the spec drops a tool with a malformed one, so ``validate``
refuses it: ``toolhost.compile.schema``). How the headers are checked against a call:
``toolhost.serve.param_headers``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

from toolhost.excerpt import cut

__all__ = ["KEY", "Field", "annotated", "annotation_problem"]

KEY = "x-mcp-header"
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_TYPES = frozenset({"string", "integer", "boolean"})
# keywords whose value is one subschema, a list of them, or a map of them (an annotation
# found through any of them is off the properties chain, so it counts for nothing)
_ONE = frozenset({"items", "contains", "additionalProperties", "propertyNames", "not", "if",
                  "then", "else", "unevaluatedItems", "unevaluatedProperties",
                  "contentSchema"})
_MANY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"patternProperties", "dependentSchemas", "$defs", "definitions"})
_MAX_NODES = 100_000  # a schema is bounded at load; this bounds the walk whatever it gets

Field = tuple[tuple[str, ...], str, str]  # (properties path, header token, type)


def _positions(schema: Any) -> Iterator[tuple[tuple[str, ...] | None, Mapping[str, Any]]]:
    """Every subschema with its ``properties`` path from the root (None once the walk left
    the pure properties chain)."""
    stack: list[tuple[tuple[str, ...] | None, Any]] = [((), schema)]
    seen = 0
    while stack and seen < _MAX_NODES:
        path, node = stack.pop()
        if not isinstance(node, Mapping):
            continue
        seen += 1
        yield path, node
        for key, value in node.items():
            if key == "properties" and isinstance(value, Mapping):
                stack.extend(reversed([((*path, str(name)) if path is not None else None, sub)
                                       for name, sub in value.items()]))  # in order
            elif key in _ONE:
                stack.append((None, value))
            elif key in _MANY and isinstance(value, list):
                stack.extend((None, sub) for sub in value)
            elif key in _MAP and isinstance(value, Mapping):
                stack.extend((None, sub) for sub in value.values())


def annotation_problem(schema: Any) -> str | None:
    """What is wrong with an ``x-mcp-header`` annotation of ``schema``, or None (none, or all
    well formed). A client that follows the spec drops a tool with a bad one."""
    seen: dict[str, str] = {}
    for path, node in _positions(schema):
        if KEY not in node:
            continue
        if not path:
            return (f"{KEY} belongs on a property reached from the root through 'properties' "
                    "alone (not at the root, nor under items, $defs, allOf, ...)")
        where = ".".join(path)
        token = node[KEY]
        if not isinstance(token, str) or not _TOKEN.fullmatch(token):
            return (f"property {where!r}: {KEY} {cut(repr(token), 60)} is not an HTTP header "
                    "name token (letters, digits and !#$%&'*+-.^_`|~, not empty)")
        kind = node.get("type")
        if not isinstance(kind, str) or kind not in _TYPES:
            return (f"property {where!r}: {KEY} is allowed only on a string, integer or "
                    f"boolean property (its type is {cut(repr(kind), 40)})")
        if token.lower() in seen:
            return (f"property {where!r}: {KEY} {token!r} is already the header of property "
                    f"{seen[token.lower()]!r} (names are compared ignoring case)")
        seen[token.lower()] = where
    return None


def annotated(schema: Any) -> list[Field]:
    """(path, header token, type) of each annotated property; [] when any is malformed."""
    if annotation_problem(schema) is not None:
        return []
    return [(path, node[KEY], node["type"]) for path, node in _positions(schema)
            if path and KEY in node]


