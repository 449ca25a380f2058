"""A tool's ``params:``: one JSON Schema per parameter, plus toolhost's ``required`` flag.

A param is required unless it has a ``default`` or says ``required: false``. A bare string is
a type name: ``count: integer`` means ``count: {type: integer}``. Keywords are checked against
JSON Schema's vocabulary so that ``descripton:`` is caught with a hint instead of being
silently ignored by every validator downstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost import regex
from toolhost.config.checks import Checker, describe, did_you_mean
from toolhost.config.tree import Path

__all__ = ["JSON_TYPES", "SCHEMA_KEYWORDS", "build_params"]

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object", "null")

SCHEMA_KEYWORDS = frozenset({
    "type", "description", "title", "enum", "const", "default", "examples", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minLength", "maxLength", "pattern", "contentMediaType", "contentEncoding",
    "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
    "minContains", "maxContains",
    "properties", "patternProperties", "additionalProperties", "propertyNames",
    "minProperties", "maxProperties", "required", "dependentRequired", "dependentSchemas",
    "anyOf", "oneOf", "allOf", "not", "if", "then", "else",
    "$ref", "$defs", "$comment", "deprecated", "readOnly", "writeOnly",
})


def build_params(check: Checker, value: Any, path: Path
                 ) -> tuple[dict[str, dict[str, Any]], tuple[str, ...] | None]:
    """Return (param name -> schema without toolhost's flag, required names or None)."""
    params = check.mapping(value, path)
    if not params:
        return {}, None
    out: dict[str, dict[str, Any]] = {}
    required: list[str] = []
    for name, spec in params.items():
        here = (*path, name)
        if isinstance(spec, str):
            spec = {"type": spec}
        schema = check.mapping(spec, here)
        if schema is None:
            continue
        schema = dict(schema)
        flag = schema.get("required")
        if isinstance(flag, bool):
            del schema["required"]
        elif "required" in schema and not isinstance(flag, list):
            check.expected((*here, "required"),
                           "true or false (or a JSON Schema list of property names)", flag)
        before = len(check.problems)
        _check_schema(check, schema, here)
        if "default" in schema and len(check.problems) == before:
            _check_default(check, schema, here)
        if flag is True or (flag is not False and "default" not in schema):
            required.append(name)
        out[name] = schema
    return out, tuple(required)


def _check_default(check: Checker, schema: Mapping[str, Any], path: Path) -> None:
    """A default the param's own schema rejects would reach the tool unchecked (defaults
    are filled in after validation): report it at load time."""
    # No check_schema here (it costs ~1 ms a param): a schema too broken to validate with
    # raises below, and the compile step reports it with its own message.
    try:
        error = _first_error(regex.validator_class(), schema, schema["default"])
    except Exception:
        return
    if error is not None:
        where = (*path, "default")
        check.problem(where, f"the default does not match the param's schema: "
                      f"{error.message}", check.word_hint(where, schema["default"], str(
                          schema.get("type"))) or "change the default or the schema")


_BIG = 1000  # items of a list default checked one by one below, past which they are deduplicated


def _first_error(cls: Any, schema: Mapping[str, Any], default: Any) -> Any:
    """The first error of ``default`` against ``schema``, as jsonschema finds it. A long list
    under a plain ``items`` schema is checked item by item with one validator, each distinct
    scalar once: jsonschema's own walk costs ~5 us an item (2.3 s for a 499,000-item default
    of a file just under the value limit)."""
    items = schema.get("items")
    if (type(default) is not list or len(default) < _BIG or type(items) is not dict
            or "prefixItems" in schema or "$ref" in repr(items)):
        return next(iter(cls(schema).iter_errors(default)), None)
    rest = {key: value for key, value in schema.items() if key != "items"}
    # jsonschema reports the keywords in the schema's order: keep it between the two checks
    order = list(schema)
    first = next(iter(cls(rest).iter_errors(default)), None)
    if first is not None and order.index(first.validator) < order.index("items"):
        return first
    check = cls(items)
    seen: set[tuple[type, Any]] = set()
    # an `items` of only a type (the commonest): an item of that type has no error, found
    # without jsonschema (~2 us an item: 1 s of a 490,000-item default of distinct ints)
    kind = items.get("type") if items.keys() <= _TYPE_ONLY else None
    plain = _OF_TYPE.get(kind) if isinstance(kind, str) else None
    for item in default:
        if plain is not None and type(item) in plain and (
                type(item) is not float or kind != "integer" or item.is_integer()):
            continue
        if type(item) in _SCALARS:
            key = (type(item), item)
            if key in seen:
                continue
            seen.add(key)
        error = next(iter(check.iter_errors(item)), None)
        if error is not None:
            return error
    return first


_SCALARS = (str, int, float, bool, type(None))
_TYPE_ONLY = frozenset({"type", "description", "title"})
_OF_TYPE: dict[str, frozenset[type]] = {  # the Python types a JSON type takes (bool is no int)
    "integer": frozenset({int, float}), "number": frozenset({int, float}),
    "string": frozenset({str}), "boolean": frozenset({bool}), "null": frozenset({type(None)})}


def _check_enum_types(check: Checker, kinds: list[Any], enum: list[Any], path: Path) -> None:
    """An ``enum`` value the param's own ``type`` refuses can never be sent: ``enum: [NO,
    SE]`` under ``type: string`` is ``[false, "SE"]`` in YAML 1.1, and "NO" was refused."""
    if not kinds:
        return
    wanted = " or ".join(str(k) for k in kinds)
    for index, value in enumerate(enum):
        if not any(_is_json_type(value, kind) for kind in kinds):
            where = (*path, "enum", index)
            check.problem(where, f"{describe(value)} is not of the param's type ({wanted}): "
                          "no argument can be it",
                          check.word_hint(where, value, wanted) or
                          "remove it, or change the type")
            return  # one is enough: the rest are likely the same mistake


def _is_json_type(value: Any, kind: str) -> bool:
    if isinstance(value, bool):  # (an int to Python, never an integer to JSON Schema)
        return kind == "boolean"
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float))
    if kind == "null":
        return value is None
    return isinstance(value, list if kind == "array" else dict) if kind != "boolean" else False


def _check_schema(check: Checker, schema: Mapping[str, Any], path: Path) -> None:
    for key in schema:
        if key not in SCHEMA_KEYWORDS and not key.startswith("x-"):
            check.problem((*path, key), "unknown JSON Schema keyword",
                          did_you_mean(key, SCHEMA_KEYWORDS))
    kind = schema.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if "type" in schema:
        # each wrong name once, three at most: `type: [1, 1, ...]` of 20,000 items was 20,000
        # lines and 20,000 did-you-mean searches
        wrong = dict.fromkeys(repr(k) for k in kinds if k not in JSON_TYPES)
        for item in list(wrong)[:3]:
            check.problem((*path, "type"), f"unknown type {item}, expected one of "
                          + ", ".join(JSON_TYPES), did_you_mean(item.strip("'\""), JSON_TYPES))
    pattern = schema.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            check.expected((*path, "pattern"), "a regular expression string", pattern)
        else:
            reason = regex.problem(pattern)
            if reason:
                check.problem((*path, "pattern"), reason)
    if "enum" in schema and not isinstance(schema["enum"], list):
        check.expected((*path, "enum"), "a list", schema["enum"])
    elif "enum" in schema and "type" in schema:
        _check_enum_types(check, [k for k in kinds if k in JSON_TYPES], schema["enum"], path)
    for key in ("description", "title", "format"):
        if key in schema and not isinstance(schema[key], str):
            check.expected((*path, key), "a string", schema[key])
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
        if key in schema and (isinstance(schema[key], bool)
                              or not isinstance(schema[key], (int, float))):
            check.expected((*path, key), "a number", schema[key])
    items = schema.get("items")
    if isinstance(items, dict):
        _check_schema(check, items, (*path, "items"))
    props = schema.get("properties")
    if isinstance(props, dict):
        for name, sub in props.items():
            if isinstance(sub, dict):
                _check_schema(check, sub, (*path, "properties", name))
            else:
                check.expected((*path, "properties", name), "a JSON Schema mapping", sub)
