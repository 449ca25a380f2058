"""The quick argument check never accepts what jsonschema rejects, and does accept the
common shapes (so the fast path is really taken)."""

from __future__ import annotations

import enum
import random
from collections import OrderedDict
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import jsonschema
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.fastcheck import compile_check
from toolhost.compile.tool import CompiledTool
from toolhost.results import ToolResult

FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


class Color(enum.IntEnum):
    RED = 1


class Name(str):
    pass


# Shapes toolhost generates (signatures, templates, config params) plus the rest of the
# supported subset and some it does not support.
SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "maximum": 10},
                                      "x": {"type": "number", "exclusiveMinimum": 0,
                                            "exclusiveMaximum": 1.5}},
     "additionalProperties": False},
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
                                               "minItems": 1, "maxItems": 3}}},
    {"type": "object", "properties": {"mode": {"enum": ["fast", "slow", None]},
                                      "level": {"enum": [1, 2, True, 2.5]},
                                      "k": {"const": "x"}}},
    {"type": "object", "properties": {"opt": {"anyOf": [{"type": "string", "minLength": 2},
                                                        {"type": "null"}]},
                                      "both": {"allOf": [{"type": "string"},
                                                         {"maxLength": 3}]}}},
    {"type": "object", "properties": {"when": {"type": "string", "format": "date"},
                                      "mail": {"type": "string", "format": "email"},
                                      "code": {"type": "string", "pattern": "^[a-z]+[0-9]?$"}}},
    {"type": "object", "properties": {"flag": {"type": "boolean"},
                                      "any": {"type": ["string", "integer"]},
                                      "obj": {"type": "object", "minProperties": 1,
                                              "maxProperties": 2,
                                              "additionalProperties": {"type": "integer"}}}},
    {"minimum": 3, "maxLength": 2, "description": "no type: bounds apply by kind"},
    {"type": "object", "properties": {"r": {"$ref": "#/$defs/a"}},
     "$defs": {"a": {"type": "string"}}},
    {"type": "object", "properties": {"o": {"oneOf": [{"type": "string"}, {"minLength": 1}]},
                                      "u": {"type": "array", "uniqueItems": True}}},
    {"type": "object", "properties": {"p": {"type": "array", "prefixItems": [{"type": "string"}],
                                            "items": {"type": "integer"}}},
     "patternProperties": {"^x": {"type": "string"}}},
    {"type": "object", "properties": {"f": False, "t": True}},
]

SAMPLES: list[Any] = [
    None, True, False, 0, 1, -1, 3, 11, 2.5, 1.0, 0.0, -0.5, 1.5, float("nan"), float("inf"),
    "", "a", "ab", "abc", "abcd", "x1", "A", "fast", "slow", "x", "2024-02-30", "2024-02-03",
    "a@b.c", "not-an-email", Name("ab"), Color.RED, Decimal("5"), [], ["a"], ["a", "b", "c", "d"],
    [1], {}, {"a": 1}, {"a": 1, "b": 2, "c": 3}, {"a": "s"}, OrderedDict(a=1),
]
KEYS = ["name", "n", "x", "tags", "mode", "level", "k", "opt", "both", "when", "mail", "code",
        "flag", "any", "obj", "r", "o", "u", "p", "f", "t", "xy", "other"]


def instances(seed: int, count: int) -> list[Any]:
    rng = random.Random(seed)
    out: list[Any] = list(SAMPLES)
    for _ in range(count):
        keys = rng.sample(KEYS, rng.randint(0, 4))
        out.append({key: rng.choice(SAMPLES) for key in keys})
    return out


@pytest.mark.parametrize("schema", SCHEMAS, ids=range(len(SCHEMAS)))
def test_never_accepts_what_jsonschema_rejects(schema: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(schema, format_checker=FORMATS)
    check = compile_check(validator)
    if check is None:
        return
    for instance in instances(len(schema), 400):
        if check(instance):
            assert validator.is_valid(instance), (schema, instance)


@pytest.mark.parametrize("schema", SCHEMAS[:8], ids=range(8))
def test_says_yes_to_most_json_values_it_supports(schema: dict[str, Any]) -> None:
    # On plain JSON values (no subclasses, no Decimal) and supported keywords, the quick
    # check agrees with jsonschema except for enum members it does not try to prove.
    validator = jsonschema.Draft202012Validator(schema, format_checker=FORMATS)
    check = compile_check(validator)
    assert check is not None
    plain = [i for i in instances(7, 400) if _plain(i)]
    valid = [i for i in plain if validator.is_valid(i)]
    assert valid, "the corpus must hold valid instances of every schema"
    missed = [i for i in valid if not check(i)]
    assert all(_has_unproven_enum(i) for i in missed), missed


def _plain(value: Any) -> bool:
    if type(value) in (dict,):
        return all(_plain(v) for v in value.values())
    if type(value) is list:
        return all(_plain(v) for v in value)
    return type(value) in (str, int, float, bool, type(None))


def _has_unproven_enum(value: Any) -> bool:
    return isinstance(value, dict) and (value.get("level") in (True, 2.5, 1.0)
                                        or isinstance(value.get("level"), float))


def test_other_drafts_and_unsupported_roots_have_no_quick_check() -> None:
    schema = SCHEMAS[0]
    assert compile_check(jsonschema.Draft7Validator(schema)) is None
    assert compile_check(jsonschema.Draft202012Validator({"$ref": "#/$defs/a"})) is None
    assert compile_check(jsonschema.Draft202012Validator({"not": {}})) is None
    assert compile_check(jsonschema.Draft202012Validator(
        {"type": "object", "properties": {"n": {"minimum": "3"}}})) is not None  # root is fine
    lenient = compile_check(jsonschema.Draft202012Validator(
        {"type": "object", "properties": {"n": {"minimum": "3"}}}))
    assert lenient is not None and not lenient({"n": 1})  # unchecked keyword value: unproven


async def _echo(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.json(dict(arguments))


def _tool(validator: Any, schema: dict[str, Any]) -> CompiledTool:
    return CompiledTool(name="t", server="s", description="d", input_schema=schema,
                        validator=validator, invoke=_echo, output="structured")


@pytest.mark.anyio
async def test_compiled_tool_answers_the_same_with_and_without_the_quick_check() -> None:
    schema = SCHEMAS[1]
    fast = _tool(jsonschema.Draft202012Validator(schema), schema)
    slow = _tool(jsonschema.Draft7Validator(schema), schema)  # same rules here, no quick check
    assert fast.fast_check is not None and slow.fast_check is None
    for arguments in instances(3, 100):
        if not isinstance(arguments, dict):
            continue
        got, want = await fast.call(arguments, CallContext()), await slow.call(arguments,
                                                                               CallContext())
        assert got == want, arguments
