"""A quick yes for valid tool arguments, compiled once from the inputSchema.

jsonschema spends 10-20 us on even a one-property schema (it walks the schema as data and
builds a validator per level); a tool call should not. ``compile_check`` turns the common
subset of JSON Schema that tool schemas use (``type``, ``properties``, ``required``,
``additionalProperties``, ``items``, ``enum``/``const`` of strings and integers, numeric and
length bounds, ``pattern``, ``format``, ``anyOf``/``allOf``, annotations) into plain Python
closures.

The check is one-sided by design: ``True`` means jsonschema would accept the instance too;
``False`` only means "not proven", and the caller asks the real validator (which also writes
the error messages). Anything outside the subset (``$ref``, ``oneOf``, ``not``, a float
``enum``, an ``int`` subclass...) compiles to "not proven", so it can never accept what
jsonschema would reject. ``tests/compile/test_fastcheck.py`` holds it to that against
jsonschema on a corpus of schemas and instances.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolhost import regex

if TYPE_CHECKING:
    from jsonschema.protocols import Validator

__all__ = ["Check", "compile_check", "compile_plain_check"]

Check = Callable[[Any], bool]

# Keywords that never change whether an instance is valid.
_ANNOTATIONS = frozenset({
    "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
    "$comment", "$schema", "$id", "$defs", "definitions", "contentMediaType",
    "contentEncoding", "contentSchema",
})
_OBJECT = frozenset({"properties", "required", "additionalProperties", "minProperties",
                     "maxProperties"})
_ARRAY = frozenset({"items", "minItems", "maxItems"})
_SUPPORTED = _ANNOTATIONS | _OBJECT | _ARRAY | frozenset({
    "type", "enum", "const", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
    "minLength", "maxLength", "pattern", "format", "anyOf", "allOf",
})


class _Unsupported(Exception):
    pass


def _unproven(value: Any) -> bool:
    return False


def _anything(value: Any) -> bool:
    return True


# ``formats`` for a plain ``Draft202012Validator(schema)``: no format checker (``format`` is
# an annotation) and ``pattern`` searched with Python's ``re``, as jsonschema does.
_PLAIN = object()
_DRAFT_2020_12 = ("https://json-schema.org/draft/2020-12/schema",
                  "https://json-schema.org/draft/2020-12/schema#")


def compile_check(validator: Validator) -> Check | None:
    """The quick check for ``validator``'s schema, or None when it would never say yes."""
    from jsonschema import Draft202012Validator

    if type(validator) not in (Draft202012Validator, regex.validator_class()):
        return None  # another draft or a custom class: its rules may differ
    check = _compile(validator.schema, getattr(validator, "format_checker", None))
    return None if check is _unproven else check


def compile_plain_check(schema: Mapping[str, Any]) -> Check | None:
    """The quick check for ``validator_for(schema)(schema)`` (no format checker), built from
    the schema alone, so jsonschema need not be imported until a value fails it; None when it
    would never say yes (another draft named by ``$schema``, or nothing provable)."""
    if "$schema" in schema and schema["$schema"] not in _DRAFT_2020_12:
        return None
    check = _compile(schema, _PLAIN)
    return None if check is _unproven else check


def _compile(schema: Any, formats: Any) -> Check:
    if schema is True:
        return _anything
    if not isinstance(schema, Mapping) or not schema.keys() <= _SUPPORTED:
        return _unproven
    try:
        checks = [c for c in _keyword_checks(schema, formats) if c is not _anything]
    except (_Unsupported, re.error, regex.RegexError, TypeError):
        return _unproven
    if not checks:
        return _anything
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)


def _keyword_checks(schema: Mapping[str, Any], formats: Any) -> list[Check]:
    checks: list[Check] = []
    kind = schema.get("type")
    has_object = not schema.keys().isdisjoint(_OBJECT)
    if kind is not None and not (kind == "object" and has_object):
        checks.append(_type_check(kind))
    if has_object:  # with type: object, this check does the type's job too
        checks.append(_object_check(schema, formats, strict=kind == "object"))
    if not schema.keys().isdisjoint(_ARRAY):
        checks.append(_array_check(schema, formats))
    if "enum" in schema:
        checks.append(_member_check(_want(schema["enum"], list)))
    if "const" in schema:
        checks.append(_member_check([schema["const"]]))
    bounds = _bound_check(schema)
    if bounds is not None:
        checks.append(bounds)
    if "pattern" in schema:
        pattern = _want(schema["pattern"], str)
        search: Callable[[str], Any] = (re.compile(pattern).search if formats is _PLAIN
                                         else regex.compile(pattern).search)
        checks.append(lambda v: search(v) if type(v) is str
                      else not isinstance(v, str))
    if "format" in schema and formats is not None and formats is not _PLAIN:
        conforms, fmt = formats.conforms, _want(schema["format"], str)
        checks.append(lambda v: bool(conforms(v, fmt)))
    if "anyOf" in schema:
        alternatives = [_compile(s, formats) for s in _want(schema["anyOf"], list)]
        checks.append(lambda v: any(alt(v) for alt in alternatives))
    if "allOf" in schema:
        parts = [_compile(s, formats) for s in _want(schema["allOf"], list)]
        checks.append(lambda v: all(part(v) for part in parts))
    return checks


def _want(value: Any, kind: type) -> Any:
    # A keyword value of the wrong type (a schema nobody checked): leave it to jsonschema.
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _Unsupported
    return value


def _number(value: Any) -> Any:
    if type(value) is not int and type(value) is not float:
        raise _Unsupported
    return value


def _is_integer(value: Any) -> bool:
    kind = type(value)
    return kind is int or (kind is float and value.is_integer())


_TYPES: dict[str, Check] = {
    "string": lambda v: type(v) is str,
    "integer": _is_integer,
    "number": lambda v: type(v) is int or type(v) is float,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: type(v) is dict,
    "array": lambda v: type(v) is list,
}


def _type_check(kind: Any) -> Check:
    if isinstance(kind, str):
        if kind not in _TYPES:
            raise _Unsupported
        return _TYPES[kind]
    if not isinstance(kind, list) or not all(isinstance(k, str) and k in _TYPES for k in kind):
        raise _Unsupported
    checks = [_TYPES[k] for k in kind]
    return lambda v: any(check(v) for check in checks)


def _object_check(schema: Mapping[str, Any], formats: Any, *, strict: bool) -> Check:
    props = {name: _compile(sub, formats)
             for name, sub in _want(schema.get("properties", {}), Mapping).items()}
    required = tuple(_want(schema.get("required", []), list))
    extra = schema.get("additionalProperties", True)
    extra_check = None if extra is False else _compile(extra, formats)
    low = _number(schema.get("minProperties", 0))
    high = _number(schema["maxProperties"]) if "maxProperties" in schema else None

    def check(value: Any) -> bool:
        if type(value) is not dict:
            # Not an object: these keywords don't apply (a dict subclass: not proven).
            return not strict and not isinstance(value, dict)
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            sub = props.get(name, extra_check)
            if sub is None or not sub(item):
                return False
        return len(value) >= low and (high is None or len(value) <= high)

    return check


def _array_check(schema: Mapping[str, Any], formats: Any) -> Check:
    items = _compile(schema.get("items", True), formats)
    low = _number(schema.get("minItems", 0))
    high = _number(schema["maxItems"]) if "maxItems" in schema else None

    def check(value: Any) -> bool:
        if type(value) is not list:
            return not isinstance(value, list)
        if len(value) < low or (high is not None and len(value) > high):
            return False
        return items is _anything or all(items(item) for item in value)

    return check


def _member_check(members: list[Any]) -> Check:
    # jsonschema's equality keeps True apart from 1 and 1 equal to 1.0; proving membership
    # only for exact str and int values (and null) sidesteps both.
    strings = frozenset(m for m in members if type(m) is str)
    integers = frozenset(m for m in members if type(m) is int)
    null = any(m is None for m in members)
    return lambda v: ((type(v) is str and v in strings) or (type(v) is int and v in integers)
                      or (null and v is None))


def _bound_check(schema: Mapping[str, Any]) -> Check | None:
    """numeric bounds and string lengths, with the comparisons jsonschema makes."""
    low = _number(schema["minimum"]) if "minimum" in schema else None
    high = _number(schema["maximum"]) if "maximum" in schema else None
    xlow = _number(schema["exclusiveMinimum"]) if "exclusiveMinimum" in schema else None
    xhigh = _number(schema["exclusiveMaximum"]) if "exclusiveMaximum" in schema else None
    short = _number(schema["minLength"]) if "minLength" in schema else None
    long = _number(schema["maxLength"]) if "maxLength" in schema else None
    numeric = (low, high, xlow, xhigh) != (None, None, None, None)
    if not numeric and short is None and long is None:
        return None

    def check(v: Any) -> bool:
        kind = type(v)
        if kind is int or kind is float:
            return not numeric or not (
                (low is not None and v < low) or (high is not None and v > high)
                or (xlow is not None and v <= xlow) or (xhigh is not None and v >= xhigh))
        if kind is str:
            return (short is None or len(v) >= short) and (long is None or len(v) <= long)
        # Neither a number nor a string: no bound applies. A subclass, a Decimal...: not
        # proven.
        return kind is bool or kind is type(None) or kind is dict or kind is list

    return check
