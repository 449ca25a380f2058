"""An ``expr`` that fails on every value its tool's arguments can take.

The engine denies a call when a rule's ``expr`` cannot be evaluated (fail closed), whatever
the rule's effect: ``allow: {tool: mcp__db__query, expr: "args.limit + '1' > 2"}`` (a number
plus a string) does not allow a query, it denies every query that reaches it. ``validate``
runs the expression, with the policy's own evaluator, on a few argument sets built from the
tool's inputSchema (every argument present, of its declared type: ``""``/``"x"``/a path/
``"12"`` for a string, ``0``/``1``/``-1``/``100`` for an integer, each enum value, ...).
When every set fails, the rule is reported with the error. Only tools whose every argument
has one plain type (or an enum/const) are probed: where a value's type is open, a failure
could be the sample's fault, and nothing is reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.permissions.expr.core import CompiledExpr, ExprError

__all__ = ["always_fails"]

_VARIANTS = 4
_SAMPLES: dict[str, list[Any]] = {
    "string": ["", "x", "/a/b.txt", "12"],
    "integer": [0, 1, -1, 100],
    "number": [0, 1.5, -1, 100],
    "boolean": [False, True, False, True],
    "null": [None] * _VARIANTS,
    "array": [[], ["x"], [1], [{}]],
    "object": [{}, {"x": "y"}, {"n": 1}, {}],
}
MAX_TARGETS = 20  # tools probed per rule


def _samples(schema: Any) -> list[Any] | None:
    if not isinstance(schema, Mapping):
        return None
    if "const" in schema:
        return [schema["const"]] * _VARIANTS
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return [enum[k % len(enum)] for k in range(_VARIANTS)]
    kind = schema.get("type")
    if not isinstance(kind, str) or kind not in _SAMPLES:
        return None
    return _SAMPLES[kind]


def _argument_sets(schema: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping) or any(
            k in schema for k in ("anyOf", "oneOf", "allOf", "$ref", "patternProperties")):
        return None
    columns: dict[str, list[Any]] = {}
    for key, sub in properties.items():
        samples = _samples(sub)
        if samples is None:
            return None
        columns[str(key)] = samples
    return [{k: v[n] for k, v in columns.items()} for n in range(_VARIANTS)]


def always_fails(expr: CompiledExpr, targets: list[tuple[str, Mapping[str, Any]]]
                 ) -> str | None:
    """The error ``expr`` raises on every argument set of the targets (None if any set
    evaluates, or no target can be probed; a target lacking a name the expr reads is
    passed over)."""
    if not targets or len(targets) > MAX_TARGETS:
        return None
    first: str | None = None
    for tool, schema in targets:
        sets = _argument_sets(schema)
        if sets is None:
            return None
        failures: list[str] = []
        for arguments in sets:
            try:
                expr.holds(tool, arguments)
            except ExprError as exc:
                failures.append(str(exc))
                continue
            return None
        # a name this tool lacks (``args.file_path`` of an LS a Read rule also names): the
        # path check speaks of it; the tool proves nothing either way
        if not any(f.startswith("UndefinedError") for f in failures):
            first = first or failures[0]
    return first
