"""The elicitation schema ``ctx.elicit`` may send: the spec's restricted form, checked before
anything is sent. A flat object whose properties are strings (``format`` email/uri/date/
date-time, length bounds), numbers and integers (bounds), booleans, single-select enums
(``enum``, ``oneOf`` of ``const``/``title``, the legacy ``enumNames``) and multi-select
enums (``type: array`` with ``items.enum`` or ``items.anyOf``), each with an optional
``default`` of its type (SEP-1034, SEP-1330); nothing else (``$ref``, ``allOf``,
``pattern``, an enum on a number), nothing no answer could fit, and nothing larger than
``MAX_SCHEMA_CHARS`` as JSON (a form a person fills in; checking a 14 MB one held the
event loop, every other client's calls with it, for 1.6 s)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolhost.excerpt import cut

__all__ = ["MAX_PROPERTIES", "MAX_SCHEMA_CHARS", "check_elicitation_schema", "size_problem"]

_PRIMITIVE = {"string", "number", "integer", "boolean"}
_STRING_FORMATS = {"email", "uri", "date", "date-time"}
MAX_PROPERTIES = 100
MAX_SCHEMA_CHARS = 128 * 1024  # of the schema as JSON


def size_problem(schema: Any) -> str | None:
    """Why ``schema`` is too large to put to a person (its JSON over ``MAX_SCHEMA_CHARS``
    characters), or None; the JSON writer is C: 14 MB in tens of milliseconds."""
    try:
        size = len(json.dumps(schema, ensure_ascii=False, default=str, check_circular=False))
    except (ValueError, TypeError, RecursionError):
        return None  # (not JSON: the checks say what is wrong with it)
    if size > MAX_SCHEMA_CHARS:
        return (f"the schema is {size:,} characters as JSON; at most {MAX_SCHEMA_CHARS:,} "
                "(a form a person fills in)")
    return None


def check_elicitation_schema(schema: Any) -> str | None:
    """What makes ``schema`` unfit for ``elicitation/create`` (None: fit): anything outside
    the spec's restricted form (a keyword it does not have, ``$ref``, ``allOf``...), and
    what no answer could fit (an enum on a number, a ``default`` of another type or outside
    the enum, a minimum above the maximum)."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        return "the schema must be an object schema ({'type': 'object', 'properties': ...})"
    too_large = size_problem(schema)
    if too_large is not None:
        return too_large
    extra = sorted(str(k) for k in schema if k not in _TOP_KEYS)
    if extra:
        return (f"{cut(', '.join(map(repr, extra)), 100)} is not part of an elicitation "
                "schema (type, properties, required)")
    props = schema.get("properties", {})
    if not isinstance(props, Mapping):
        return "'properties' must be a mapping"
    if len(props) > MAX_PROPERTIES:
        return f"at most {MAX_PROPERTIES} properties"
    for name, prop in props.items():
        problem = _check_property(prop)
        if problem is not None:
            return f"property {cut(repr(name), 60)}: {problem}"
    required = schema.get("required", [])
    if not isinstance(required, list) or any(
            not isinstance(r, str) or r not in props for r in required):
        return "'required' must list properties of the schema"
    from jsonschema import Draft202012Validator  # ~60 ms: when a tool first elicits

    try:
        Draft202012Validator.check_schema(dict(schema))
    except Exception as exc:  # jsonschema's SchemaError: say which part
        return f"not a valid JSON Schema ({cut(str(getattr(exc, 'message', exc)), 200)})"
    return None


def _check_property(prop: Any) -> str | None:
    if not isinstance(prop, Mapping):
        return "must be a schema mapping"
    kind = prop.get("type")
    if kind == "array":  # a multi-select enum
        items = prop.get("items")
        # the items are a string enum and nothing else: a nested object or a $ref in them
        # would reach the client as a schema outside the spec
        if (not isinstance(items, Mapping) or items.get("type", "string") != "string"
                or any(k not in _ITEM_KEYS for k in items)
                or not (_strings(items.get("enum")) or _titled(items.get("anyOf")))):
            return ("an array is allowed only as a multi-select enum: items of type string "
                    "with a list of strings in 'enum', or 'anyOf' of {const, title}")
        return _fits(prop, kind)
    if kind not in _PRIMITIVE:
        return ("must be a string, number, integer or boolean (objects and nested "
                "structures cannot be elicited)")
    problem = _fits(prop, kind)
    if problem is not None:
        return problem
    if "enum" in prop and not _strings(prop["enum"]):
        return "'enum' must be a non-empty list of strings"
    if "oneOf" in prop and not _titled(prop["oneOf"]):
        return "'oneOf' must be a non-empty list of {const: string, title: string}"
    names = prop.get("enumNames")
    if names is not None and (not _strings(names) or not isinstance(prop.get("enum"), list)
                              or len(names) != len(prop["enum"])):
        return "'enumNames' must be strings, one per 'enum' value"
    fmt = prop.get("format")
    if fmt is not None and (kind != "string" or fmt not in _STRING_FORMATS):
        return f"'format' must be one of {', '.join(sorted(_STRING_FORMATS))} on a string"
    return None


_ITEM_KEYS = frozenset({"type", "enum", "anyOf"})
_TOP_KEYS = frozenset({"type", "properties", "required", "$schema", "title", "description"})
_COMMON = frozenset({"type", "title", "description", "default"})
_KEYS = {"string": _COMMON | {"minLength", "maxLength", "format", "enum", "enumNames",
                              "oneOf"},
         "number": _COMMON | {"minimum", "maximum"}, "integer": _COMMON | {"minimum", "maximum"},
         "boolean": _COMMON, "array": _COMMON | {"items", "minItems", "maxItems"}}
_BOUNDS = (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"))


def _fits(prop: Mapping[str, Any], kind: str) -> str | None:
    """What of ``prop`` is outside the restricted form, or that no answer could fit."""
    extra = sorted(str(k) for k in prop if k not in _KEYS[kind])
    if extra:
        return (f"{cut(', '.join(map(repr, extra)), 100)} is not part of a {kind} "
                "elicitation property")
    for low, high in _BOUNDS:
        bottom, top = prop.get(low), prop.get(high)
        if (isinstance(bottom, int | float) and isinstance(top, int | float)
                and not isinstance(bottom, bool) and not isinstance(top, bool) and bottom > top):
            return f"'{low}' {bottom} is above '{high}' {top}: no answer fits"
    if "default" not in prop:
        return None
    default = prop["default"]
    fit = {"string": isinstance(default, str), "boolean": isinstance(default, bool),
           "integer": isinstance(default, int) and not isinstance(default, bool),
           "number": isinstance(default, int | float) and not isinstance(default, bool),
           "array": isinstance(default, list) and all(isinstance(v, str) for v in default)
           }[kind]
    if not fit:
        return f"'default' {cut(repr(default), 60)} is not of type {kind}"
    choices = _choices(prop if kind == "string" else prop.get("items", {}))
    values = default if isinstance(default, list) else [default]
    if choices is not None and any(v not in choices for v in values):
        return f"'default' {cut(repr(default), 60)} is not one of the choices"
    return None


def _choices(schema: Any) -> set[str] | None:
    """The values an enum property (or a multi-select's items) allows; None: any."""
    if not isinstance(schema, Mapping):
        return None
    if isinstance(schema.get("enum"), list):
        return {str(v) for v in schema["enum"]}
    for key in ("oneOf", "anyOf"):
        if isinstance(schema.get(key), list):
            return {str(v.get("const")) for v in schema[key] if isinstance(v, Mapping)}
    return None


def _strings(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def _titled(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(v, Mapping) and set(v) <= {"const", "title"}
        and isinstance(v.get("const"), str)
        and isinstance(v.get("title"), str) for v in value)
