"""A quick yes for ``Draft202012Validator.check_schema``, without importing jsonschema.

Every tool's inputSchema passes the metaschema check when a config is compiled; jsonschema is
about 60 ms of a fresh process's imports, more than the rest of ``toolhost validate``'s work
on a small config. ``proven_valid`` answers for the keywords tool schemas use, each value of
the type the 2020-12 metaschema asks for (and ``pattern`` compiling as ``re`` compiles it, as
the metaschema's ``format: regex`` is checked). One-sided, like ``fastcheck``: ``True`` means
``check_schema`` accepts the schema too; ``False`` means "not proven", and the caller asks
jsonschema, which also writes the message. ``tests/compile/test_metacheck.py`` holds it to
that against jsonschema.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

__all__ = ["proven_valid"]

_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_MAX_DEPTH = 64


def _anything(value: Any) -> bool:
    return True


def _string(value: Any) -> bool:
    return type(value) is str


def _boolean(value: Any) -> bool:
    return type(value) is bool


def _number(value: Any) -> bool:
    return type(value) is int or type(value) is float


def _count(value: Any) -> bool:  # the metaschema's nonNegativeInteger
    return type(value) is int and value >= 0


def _array(value: Any) -> bool:
    return type(value) is list


def _type(value: Any) -> bool:
    if type(value) is str:
        return value in _TYPES
    return (type(value) is list and bool(value) and len(set(map(str, value))) == len(value)
            and all(type(v) is str and v in _TYPES for v in value))


def _strings(value: Any) -> bool:  # required: unique strings
    return (type(value) is list and all(type(v) is str for v in value)
            and len(set(value)) == len(value))


def _regex(value: Any) -> bool:
    if type(value) is not str:
        return False
    try:
        with warnings.catch_warnings():  # "possible nested set" ([[:alpha:]]): not the user's
            warnings.simplefilter("ignore")  # business here, and an error under -W error
            re.compile(value)
    except (re.error, RecursionError, OverflowError, FutureWarning):
        return False
    return True


# a value every ``uri-reference`` / ``uri`` checker accepts (rfc3987 or rfc3986-validator,
# whichever is installed, or none): a local JSON pointer of unreserved characters, an http(s)
# URL of them; anything else is left to jsonschema
# (possessive: a long value keeps no regex frame per character)
# (text: compiled at its first use, kept in re's cache; not at every start)
_LOCAL_REF = r"#(?:/(?:[A-Za-z0-9._~$-]++|%[0-9A-Fa-f]{2})*+)*+"
_PLAIN_URI = re.compile(r"https?://[A-Za-z0-9.-]++(?:/[A-Za-z0-9._~-]*+)*+#?")
_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")


def _local_ref(value: Any) -> bool:
    return type(value) is str and re.fullmatch(_LOCAL_REF, value) is not None


def _plain_uri(value: Any) -> bool:
    return type(value) is str and _PLAIN_URI.fullmatch(value) is not None


def _anchor(value: Any) -> bool:
    return type(value) is str and _ANCHOR.fullmatch(value) is not None


def _positive(value: Any) -> bool:
    return _number(value) and value > 0


# keyword -> the check of its value (those naming subschemas are in the tables below)
_VALUES: dict[str, Callable[[Any], bool]] = {
    "type": _type, "enum": _array, "const": _anything, "default": _anything,
    "examples": _array, "title": _string, "description": _string, "$comment": _string,
    "format": _string, "deprecated": _boolean, "readOnly": _boolean, "writeOnly": _boolean,
    "uniqueItems": _boolean, "minimum": _number, "maximum": _number,
    "exclusiveMinimum": _number, "exclusiveMaximum": _number, "multipleOf": _positive,
    "minLength": _count, "maxLength": _count, "minItems": _count, "maxItems": _count,
    "minProperties": _count, "maxProperties": _count, "minContains": _count,
    "maxContains": _count, "required": _strings, "pattern": _regex,
    "$ref": _local_ref, "$dynamicRef": _local_ref, "$schema": _plain_uri, "$anchor": _anchor,
    "$dynamicAnchor": _anchor,
}
_ONE = frozenset({"additionalProperties", "items", "not", "contains", "propertyNames", "if",
                  "then", "else"})
_MAPS = frozenset({"properties", "$defs", "patternProperties"})
_LISTS = frozenset({"anyOf", "allOf", "oneOf", "prefixItems"})


def proven_valid(schema: Any, depth: int = 0) -> bool:
    """True when ``Draft202012Validator.check_schema(schema)`` would raise nothing."""
    if type(schema) is bool:
        return True
    if type(schema) is not dict or depth > _MAX_DEPTH:
        return False
    for key, value in schema.items():
        check = _VALUES.get(key)
        if check is not None:
            if not check(value):
                return False
        elif key in _ONE:
            if not proven_valid(value, depth + 1):
                return False
        elif key in _MAPS:
            if type(value) is not dict or not all(
                    type(k) is str and proven_valid(v, depth + 1) for k, v in value.items()):
                return False
            if key == "patternProperties" and not all(map(_regex, value)):
                return False
        elif key in _LISTS:
            if type(value) is not list or not value or not all(
                    proven_valid(v, depth + 1) for v in value):
                return False
        else:
            return False  # $ref, $schema, $id, unknown keywords...: jsonschema decides
    return True
