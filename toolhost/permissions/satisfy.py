"""Can a ``when`` condition hold for any value its argument can take?

When an argument's possible values are finite — an ``enum``, a ``const``, a boolean or null
argument, or the values a condition's own ``equals``/``one_of`` pins it to — ``validate`` runs
the real condition engine (``conditions.compile_when``) over every one of them, with the
rule's own semantics (an allow rule is strict: a test that cannot judge a value does not hold),
and reports the condition when none passes. Nothing here re-implements an operator, so a
finding is exactly "the policy would never match this", and a condition that can match stays
silent. Where the values cannot be listed (any string, any number) the answer is "maybe",
except for numeric bounds, whose intersection with the schema's range is computed.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from toolhost.excerpt import cut
from toolhost.permissions.conditions import (
    MISSING,
    WRONG,
    KeyPath,
    PointerSegment,
    compile_when,
    json_type,
)
from toolhost.permissions.schemapath import resolve, schema_types

__all__ = ["never_holds"]

Valid = Callable[[Mapping[str, Any], Any], bool]  # schema, value -> the schema allows it
_FEW = 256  # more possible values than this: not worth listing (an enum of thousands)


def never_holds(when: Mapping[str, Any], path: KeyPath, schemas: Sequence[Mapping[str, Any]],
                *, strict: bool, valid: Valid, cwd: str, rule_dir: str) -> str:
    """Why the ``when`` entries in ``when`` (all naming ``path``, so all ANDed on one value)
    can never hold together, for an argument described by each of ``schemas`` (a rule that
    matches several tools: it must fail for every one); "" when some value may pass.

    ``schemas`` holds ``{}`` for a tool whose schema is unknown (anything may be passed)."""
    try:
        conditions = compile_when(when, cwd=cwd, rule_dir=rule_dir)
    except ValueError:
        return ""  # compile_rule reports it
    specs = [spec if isinstance(spec, Mapping) else {"equals": spec} for spec in when.values()]
    shown: list[Any] = []
    for schema in schemas:
        values = _possible(schema, specs, strict=strict, valid=valid)
        if values is None:
            if _numeric_gap(schema, specs, path, strict=strict):
                continue
            return ""
        extra = [MISSING] + ([WRONG] if _may_be_wrong(schema, path) else [])
        for value in values + extra:
            arguments = _arguments(path, value)
            if arguments is not None and all(c.holds(arguments, strict=strict)
                                              for c in conditions):
                return ""
        shown += [v for v in values if not any(_same(v, s) for s in shown)]
    if not shown:
        return "its min/max leave no number the argument can take" + _range(schemas[0])
    listed = cut(", ".join(json.dumps(v, default=str) for v in shown), 120)
    return f"none of the values the argument can take here ({listed}) passes it"


def _possible(schema: Mapping[str, Any], specs: list[Mapping[str, Any]], *, strict: bool,
              valid: Valid) -> list[Any] | None:
    """Every value the argument can take that could pass ``specs``, or None (too many)."""
    finite = _finite(schema, valid)
    if finite is not None:
        return finite
    types = schema_types(schema) if schema else None
    for spec in specs:
        choices = ([spec["equals"]] if "equals" in spec else
                   list(spec["one_of"]) if isinstance(spec.get("one_of"), list) else None)
        if not choices or len(choices) > _FEW:
            continue
        # A value of a type none of the choices has is not judged by equals/one_of: in an allow
        # rule it fails, in a deny or ask rule it passes, so only the choices count when every
        # type the schema allows is judged.
        kinds = {json_type(c) for c in choices}
        if strict or (types is not None and {_json(t) for t in types} <= kinds):
            pinned = [c for c in choices if valid(schema, c)]
            if pinned:
                return pinned
    return None


def _finite(schema: Mapping[str, Any], valid: Valid) -> list[Any] | None:
    """The values of an enum, const, boolean or null schema that the whole schema allows."""
    if not schema:
        return None
    enum = schema.get("enum")
    if isinstance(enum, list):
        listed = enum
    elif "const" in schema:
        listed = [schema["const"]]
    else:
        types = schema_types(schema)
        if not types or not types <= {"boolean", "null"}:
            return None
        listed = [v for t, vs in (("boolean", [True, False]), ("null", [None]))
                  if t in types for v in vs]
    if len(listed) > _FEW:
        return None
    out = [v for v in listed if valid(schema, v)]
    return out or None  # a schema nothing satisfies proves nothing about the rule


def _numeric_gap(schema: Mapping[str, Any], specs: list[Mapping[str, Any]], path: KeyPath,
                 *, strict: bool) -> bool:
    """Whether the condition's ``min``/``max`` leave no number within the schema's own bounds,
    for an argument that can only be a number (in an allow rule: can only pass as one)."""
    types = schema_types(schema) if schema else None
    if types is None or not types & {"number", "integer"} or (
            not strict and (not types <= {"number", "integer"} or _may_be_wrong(schema, path))):
        return False  # a deny or ask rule matches what min/max cannot judge
    if _empty(types, *_bounds(schema)):
        return False  # a schema nothing satisfies proves nothing about the rule
    # (a multipleOf only removes numbers: a gap without it is a gap with it)
    low, high, low_open, high_open = _bounds(schema)
    for spec in specs:
        if not {"min", "max"} & set(spec) or set(spec) - {"min", "max", "present"}:
            continue
        if spec.get("present") is False:
            return False
        low_at, high_at = spec.get("min"), spec.get("max")
        if _is_number(low_at) and (low is None or low_at > low):
            low, low_open = low_at, False
        if _is_number(high_at) and (high is None or high_at < high):
            high, high_open = high_at, False
    return _empty(types, low, high, low_open, high_open)


def _empty(types: set[str], low: Any, high: Any, low_open: bool, high_open: bool) -> bool:
    """Whether no number of ``types`` lies between the bounds."""
    if low is None or high is None:
        return False
    if types <= {"integer"}:
        first = math.floor(low) + 1 if low_open and low == math.floor(low) else math.ceil(low)
        last = math.ceil(high) - 1 if high_open and high == math.ceil(high) else math.floor(high)
        return bool(first > last)
    return bool(low > high or (low == high and (low_open or high_open)))


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _bounds(schema: Mapping[str, Any]) -> tuple[Any, Any, bool, bool]:
    def num(key: str) -> Any:
        v = schema.get(key)
        return v if _is_number(v) else None
    low, high = num("minimum"), num("maximum")
    low_open = high_open = False
    if (x := num("exclusiveMinimum")) is not None and (low is None or x >= low):
        low, low_open = x, True
    if (x := num("exclusiveMaximum")) is not None and (high is None or x <= high):
        high, high_open = x, True
    return low, high, low_open, high_open


def _range(schema: Mapping[str, Any]) -> str:
    low, high, low_open, high_open = _bounds(schema)
    parts = [f"{'above' if low_open else 'at least'} {low}" if low is not None else "",
             f"{'below' if high_open else 'at most'} {high}" if high is not None else ""]
    said = " and ".join(p for p in parts if p)
    return f" (it is {said})" if said else ""


def _json(schema_type: str) -> str:
    return "number" if schema_type == "integer" else schema_type


def _same(a: Any, b: Any) -> bool:
    return json_type(a) == json_type(b) and a == b


def _may_be_wrong(schema: Mapping[str, Any], path: KeyPath) -> bool:
    """Whether a step of ``path`` may meet a value that is not the object or list it needs."""
    for i in range(1, len(path)):
        node = resolve(schema, path[:i]).schema if schema else None
        types = schema_types(node) if node else None
        part = path[i]
        need = ({"array"} if isinstance(part, int) else
                {"object", "array"} if isinstance(part, PointerSegment) and part.isdigit()
                else {"object"})
        if types is None or not types <= need:
            return True
    return False


def _arguments(path: KeyPath, value: Any) -> dict[str, Any] | None:
    """Call arguments in which ``path`` holds ``value`` (MISSING: is absent; WRONG: steps
    through a string)."""
    if not path or isinstance(path[0], int):
        return None  # the arguments are an object: such a path is judged elsewhere
    if value is WRONG:
        if len(path) == 1:
            return None
        path, value = path[:-1], "not a container"
    built = _build(path, value)
    return built if isinstance(built, dict) else None


def _build(path: KeyPath, value: Any) -> Any:
    part, rest = path[0], path[1:]
    inner = _build(rest, value) if rest else value
    if isinstance(part, int):
        return [] if inner is MISSING else [None] * part + [inner]
    return {} if inner is MISSING else {part: inner}
