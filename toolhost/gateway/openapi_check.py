"""openapi-spec-validator's checkers, with its one unguarded recursion guarded.

Its schema checker collects the property names an ``allOf`` part reaches (to tell whether
``required`` names a property defined nowhere) by following ``allOf``/``anyOf``/``oneOf``/
``items``/``not`` through references without remembering where it has been. A schema
recursive through them (a ``JsonValue`` that is a string or an array of ``JsonValue``s, a
list of lists) that an ``allOf`` names, or a cycle of ``allOf`` parts, made it recurse until
Python's stack ran out: a valid document was refused, and a cycle toolhost locates itself
got an extra line at ``1:1`` with no key path. Here the same collection visits each schema
once (the names it finds are the same: what a cycle reaches it reaches on its first pass).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

__all__ = ["spec_validator"]

_FOLLOWED = ("allOf", "anyOf", "oneOf")


def spec_validator(openapi_30: bool) -> Any:
    """openapi-spec-validator's document checker for OpenAPI 3.0 (or 3.1), its schema
    checker's property collection guarded (ImportError without the package: imported at
    each use, so a package taken away is noticed)."""
    from openapi_spec_validator import OpenAPIV30SpecValidator, OpenAPIV31SpecValidator

    return _guarded(OpenAPIV30SpecValidator if openapi_30 else OpenAPIV31SpecValidator)


@cache
def _guarded(base: Any) -> Any:
    keywords = dict(getattr(base, "keyword_validators", {}) or {})
    checker = keywords.get("schema")
    if not isinstance(checker, type) or not hasattr(checker, "_collect_properties"):
        return base  # (another version: nothing of this kind to guard)
    keywords["schema"] = type(checker.__name__, (checker,),
                              {"_collect_properties": _collect_properties})
    return type(base.__name__, (base,), {"keyword_validators": keywords})


def _collect_properties(self: Any, schema: Any) -> set[str]:
    """Every property name reachable from ``schema`` (a ``SchemaPath``) as the validator's
    own method finds them, each schema visited once, without recursion."""
    names: set[str] = set()
    seen: set[int] = set()
    todo = [schema]
    while todo:
        node = todo.pop()
        value = node.read_value()  # (a reference is followed: the node it names)
        if id(value) in seen:
            continue
        seen.add(id(value))
        properties = value.get("properties") if isinstance(value, Mapping) else None
        if isinstance(properties, Mapping):
            names.update(str(name) for name in properties)
        for keyword in _FOLLOWED:
            if keyword in node:
                todo.extend(node / keyword)
        for keyword in ("items", "not"):
            if keyword in node:
                todo.append(node / keyword)
    return names
