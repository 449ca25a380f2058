"""The final inputSchema of a tool, and the checks every schema must pass.

``merge_input_schema`` starts from what the backend generated (a signature, template
placeholders) and lays the config's ``params`` over it: a declared param replaces the generated
property of that name wholesale. ``required`` is the config's list for declared params plus the
generated required names the config did not redeclare.

``schema_problems`` lists what would break a client: the schema must pass
``Draft202012Validator.check_schema``, have ``type: object`` at the root, use property names
the Claude API accepts (``^[a-zA-Z0-9_.-]{1,64}$``) and give every array an ``items``.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from toolhost.compile.schema_meta import metaschema_problem
from toolhost.config.model import ToolConfig
from toolhost.excerpt import cut

__all__ = [
    "PROPERTY_NAME",
    "closed_schema",
    "merge_input_schema",
    "schema_problems",
    "top_level_defaults",
    "wire_name_problem",
]

PROPERTY_NAME = re.compile(r"^[a-zA-Z0-9_.-]{1,64}$")
TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # the Messages API's rule for tool names
MAX_WIRE_NAME = 64


def merge_input_schema(generated: Mapping[str, Any], tool: ToolConfig) -> dict[str, Any]:
    """The generated schema with the config's params laid over it; a declared
    ``input_schema`` instead, kept exactly as written ($schema, $defs, $ref and all)."""
    if tool.input_schema is not None:
        return dict(tool.input_schema)
    schema = dict(generated)
    props = dict(schema.get("properties") or {})
    gen_required = [n for n in schema.get("required") or () if n not in tool.params]
    for name, param in tool.params.items():
        props[name] = dict(param)
    schema["type"] = schema.get("type", "object")
    schema["properties"] = props
    declared_required = [n for n in (tool.required or ()) if n in tool.params]
    required = list(dict.fromkeys(declared_required + gen_required))
    if required:
        schema["required"] = required
    else:
        schema.pop("required", None)
    return schema


# keywords under which a schema's properties may be declared elsewhere than `properties`
_COMPOSED = ("$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "if", "then", "else",
             "dependentSchemas", "patternProperties")


def closed_schema(schema: dict[str, Any], takes: set[str]) -> tuple[dict[str, Any], str]:
    """A python tool's whole ``input_schema`` when its function takes no ``**kwargs``: JSON
    Schema admits any other property unless told otherwise, and each would be passed to the
    function, reaching a parameter the schema leaves out (``include_private``) with any value.
    Returns the schema with ``additionalProperties: false`` added when it says nothing
    (``unevaluatedProperties: false`` when its properties may come from ``allOf``, ``$ref``
    ...), and a problem when it admits other properties and the function has parameters the
    schema does not name."""
    if "additionalProperties" in schema or "unevaluatedProperties" in schema:
        extra = schema.get("additionalProperties", schema.get("unevaluatedProperties"))
        named = set(schema.get("properties") or {}) if isinstance(
            schema.get("properties"), Mapping) else set()
        hidden = sorted(takes - named)
        if extra is not False and hidden:
            return schema, (f"the schema admits properties it does not declare, so the model "
                            f"could set the function's parameter(s) "
                            f"{', '.join(map(repr, hidden))}, which it leaves out; say "
                            "additionalProperties: false (or declare them)")
        return schema, ""
    key = "unevaluatedProperties" if any(k in schema for k in _COMPOSED) \
        else "additionalProperties"
    return {**schema, key: False}, ""


def top_level_defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``default`` of each top-level property: filled in for arguments the model left out."""
    props = schema.get("properties") or {}
    return {name: sub["default"] for name, sub in props.items()
            if (type(sub) is dict or isinstance(sub, Mapping)) and "default" in sub}


def _arrays_without_items(node: Any, path: str) -> Iterator[str]:
    if isinstance(node, Mapping):
        kind = node.get("type")
        is_array = kind == "array" or (isinstance(kind, list) and "array" in kind)
        if is_array and "items" not in node:
            yield path or "(root)"
        for key, value in node.items():
            if key in ("enum", "const", "default", "examples"):
                continue  # data, not schemas
            yield from _arrays_without_items(value, f"{path}.{key}" if path else str(key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            if not isinstance(value, _SCALAR):  # (an `x-` list of 490,000 numbers: a call each)
                yield from _arrays_without_items(value, f"{path}[{i}]")


_SCALAR = (str, int, float, type(None))


def schema_problems(schema: Mapping[str, Any], *, what: str = "inputSchema") -> list[str]:
    """Everything wrong with ``schema``, as messages; empty when it is fine."""
    try:  # the tools of a big config repeat a few schemas: each is checked once
        key = json.dumps(schema, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:  # a date, a Decimal, NaN: no client can read it
        return [f"{what} is not JSON: {not_json(schema) or exc}"]
    except RecursionError:
        return _schema_problems(schema, what)
    return list(_checked(key, what))


def not_json(value: Any, where: str = "") -> str | None:
    """Where ``value`` holds something JSON cannot carry (``"at properties.a.enum[0]:
    datetime.date(2024, 1, 1)"``), or None."""
    todo: list[tuple[Any, str, int]] = [(value, where, 0)]
    while todo:
        item, path, depth = todo.pop()
        if depth > 200:
            continue
        if isinstance(item, float) and not math.isfinite(item):
            return f"at {path or '(root)'}: {item!r}"
        if isinstance(item, Mapping):
            for k, v in item.items():
                if not isinstance(k, str):
                    return f"at {path or '(root)'}: the key {k!r} is not a string"
                todo.append((v, f"{path}.{k}" if path else k, depth + 1))
        elif isinstance(item, (list, tuple)):
            todo.extend((v, f"{path}[{i}]", depth + 1) for i, v in enumerate(item))
        elif not (item is None or isinstance(item, (str, int, float, bool))):
            return f"at {path or '(root)'}: {cut(repr(item), 80)}"
    return None


@functools.lru_cache(maxsize=4096)
def _checked(key: str, what: str) -> tuple[str, ...]:
    return tuple(_schema_problems(json.loads(key), what))


def _schema_problems(schema: Mapping[str, Any], what: str) -> list[str]:
    found = metaschema_problem(schema)
    if found is not None:
        return [f"{what} is not a valid JSON Schema at {found[0] or '(root)'}: {found[1]}"]
    problems: list[str] = []
    # what an upstream's schema must be, a config's must be too: every $ref local and
    # pointing at something, every pattern one RE2 can honour, no reference cycle; else
    # the schema loads and every call fails ("cannot be checked"), or a pattern differs
    from toolhost.compile.schema_safety import schema_problem

    unsafe = schema_problem(schema)
    if unsafe:
        problems.append(f"{what} cannot be used: {unsafe}")
    if schema.get("type") != "object":
        problems.append(f"{what} must have type: object at the root, not {schema.get('type')!r}")
    for name in schema.get("properties") or {}:
        if not PROPERTY_NAME.match(name):
            problems.append(f"{what} property name {name!r} is not allowed by the Claude API "
                            "(1-64 characters of letters, digits, '_', '.', '-')")
    from toolhost.compile.header_fields import annotation_problem

    header = annotation_problem(schema)  # (SEP-2243: a client drops such a tool)
    if header:
        problems.append(f"{what}: {header}")
    problems += [f"{what} has an array without 'items' at {path}"
                 for path in _arrays_without_items(schema, "")]
    problems += [f"{what} at {path or '(root)'}: {message}"
                 for path, message in _unsatisfiable(schema, "", 0)]
    return problems


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "array": (list,), "object": (dict,), "null": (type(None),)}
_BOUNDS = (("minimum", "maximum"), ("minLength", "maxLength"), ("minItems", "maxItems"),
           ("minProperties", "maxProperties"), ("exclusiveMinimum", "exclusiveMaximum"))
_SUBSCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_ONE = ("items", "additionalProperties", "not", "if", "then", "else", "contains")


def _fits(value: Any, types: Any) -> bool:
    names = [types] if isinstance(types, str) else list(types or [])
    for name in names:
        kinds = _TYPES.get(name, ())
        if isinstance(value, bool) and name not in ("boolean",):
            continue
        if name == "integer" and isinstance(value, float) and value.is_integer():
            return True
        if isinstance(value, kinds):
            return True
    return not names


def _unsatisfiable(node: Any, path: str, depth: int) -> Iterator[tuple[str, str]]:
    """Keywords that make a schema accept no value at all (a tool nobody can call)."""
    if not isinstance(node, Mapping) or depth > 64:
        return
    enum = node.get("enum")
    if isinstance(enum, list):
        if not enum:
            yield path, "enum: [] allows no value"
        elif "type" in node and not any(_fits(v, node["type"]) for v in enum):
            yield path, f"no enum value is of type {node['type']!r}"
    if "const" in node and "type" in node and not _fits(node["const"], node["type"]):
        yield path, f"const {node['const']!r} is not of type {node['type']!r}"
    for low, high in _BOUNDS:
        a, b = node.get(low), node.get(high)
        if (isinstance(a, (int, float)) and isinstance(b, (int, float))
                and not isinstance(a, bool) and not isinstance(b, bool) and a > b):
            yield path, f"{low} {a} is greater than {high} {b}"
    for key in _SUBSCHEMA_MAPS:
        children = node.get(key)
        if isinstance(children, Mapping):
            for name, child in children.items():
                yield from _unsatisfiable(child, f"{path}/{key}/{name}", depth + 1)
    for key in _SUBSCHEMA_LISTS:
        children = node.get(key)
        if isinstance(children, list):
            for index, child in enumerate(children):
                yield from _unsatisfiable(child, f"{path}/{key}/{index}", depth + 1)
    for key in _SUBSCHEMA_ONE:
        yield from _unsatisfiable(node.get(key), f"{path}/{key}", depth + 1)


def wire_name_problem(tool: ToolConfig) -> str | None:
    name = tool.wire_name
    if len(name) > MAX_WIRE_NAME:
        return (f"the tool's full name {name!r} is {len(name)} characters; the Claude API "
                f"allows {MAX_WIRE_NAME} (shorten the server or tool name)")
    if not TOOL_NAME.match(name):
        return f"the tool's full name {name!r} may only use letters, digits, '_' and '-'"
    return None
