"""Converting a JSON argument back for a ``Union`` or ``Literal`` annotation.

A union's members are tried in the order written, as pydantic's left-to-right mode does: the
first member whose schema admits the JSON value's kind (object, array, string, integer,
number, boolean, null) and whose converter accepts it gives the value. So ``Union[DC, int]``
makes ``{"n": 1}`` a ``DC`` and ``3`` an ``int``; ``Union[date, str]`` makes ``"2024-01-01"``
a ``date`` and ``"soon"`` the string; ``Optional[DC]`` makes a dict a ``DC`` and ``null``
``None``. A member's converter refusing the value (``ValueError``/``TypeError``: a date that
does not parse, a dict with keys the dataclass does not have) passes it to the next member.
A ``Literal`` value comes back as the literal itself (``1.0`` for ``Literal[1, "x"]`` is
``1``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["admits", "json_kind", "literal_converter", "schema_kinds", "union_converter"]

Converter = Callable[[Any], Any]
ALL_KINDS = frozenset({"object", "array", "string", "integer", "number", "boolean", "null"})


def json_kind(value: Any) -> str:
    """The JSON Schema type name of a JSON value (an integral float is ``number``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    return "array"


def schema_kinds(schema: Mapping[str, Any]) -> frozenset[str]:
    """The kinds of JSON value ``schema`` may admit (a superset: enough to try a member)."""
    if "$ref" in schema:  # only classes (dataclass, TypedDict, pydantic model) are $defs
        return frozenset({"object"})
    kind = schema.get("type")
    if isinstance(kind, str):
        return frozenset({kind})
    if isinstance(kind, list):
        return frozenset(k for k in kind if isinstance(k, str))
    if isinstance(schema.get("enum"), list):
        return frozenset(json_kind(v) for v in schema["enum"])
    members = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(members, list):
        return frozenset().union(*(schema_kinds(m) for m in members if isinstance(m, Mapping)))
    return ALL_KINDS


def admits(kinds: frozenset[str], value: Any) -> bool:
    """Whether a schema admitting ``kinds`` may admit ``value`` (an int where a number is, an
    integral float where an integer is)."""
    kind = json_kind(value)
    if kind in kinds:
        return True
    if kind == "integer":
        return "number" in kinds
    return kind == "number" and "integer" in kinds and float(value).is_integer()


def union_converter(members: Sequence[tuple[frozenset[str], Converter | None]]) -> Converter:
    """The converter of a union whose members are ``(kinds, converter or None)`` in order
    (``None``: the JSON value is already right)."""
    def convert(value: Any) -> Any:
        failure: Exception | None = None
        for kinds, conv in members:
            if not admits(kinds, value):
                continue
            if conv is None:
                if json_kind(value) == "number" and "number" not in kinds:
                    return int(value)  # an integral float for an int member
                return value
            try:
                return conv(value)
            except (ValueError, TypeError) as exc:  # not this member's: try the next one
                failure = failure or exc
        if failure is not None:
            raise failure
        return value
    return convert


def literal_converter(values: Sequence[Any]) -> Converter | None:
    """The converter of a ``Literal``: a JSON value equal to one of ``values`` becomes that
    value (``1.0`` -> ``1``; an Enum member's value -> the member); None when no value can
    arrive differently (no numbers, no Enum members)."""
    import enum

    wire = [(v.value if isinstance(v, enum.Enum) else v, v) for v in values]
    if not any(isinstance(v, enum.Enum) or (isinstance(v, int) and not isinstance(v, bool))
               for v in values):
        return None

    def convert(value: Any) -> Any:
        kind = json_kind(value)
        for sent, literal in wire:
            if json_kind(sent) == kind and sent == value:
                return literal
        for sent, literal in wire:  # 1.0 for 1
            if {json_kind(sent), kind} == {"integer", "number"} and sent == value:
                return literal
        return value
    return convert
