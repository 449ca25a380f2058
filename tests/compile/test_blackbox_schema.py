"""schema_problems checks each property's schema on its own and caches by content (a config
of 1,000 tools repeats the same params): the verdicts must be exactly check_schema's."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolhost.compile.schema import schema_problems

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"a": {"type": "string", "maxLength": 9}}},
    {"type": "object", "properties": {"a": {"type": "strin"}}},
    {"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}},
    {"type": "object", "properties": {"a": True, "b": {"type": "array", "items": {"type": 5}}}},
    {"type": "object", "required": "a", "properties": {"a": {}}},
    {"type": "object", "required": ["a", "a"], "properties": {"a": {}}},
    {"type": "object", "properties": {"a": {"$ref": "#/$defs/X"}},
     "$defs": {"X": {"type": "nope"}}},
    {"type": "object", "properties": {"a": {"pattern": "("}}},
    {"type": "object", "properties": {"a": {"properties": {"b": {"enum": 3}}}}},
    {"type": "object", "properties": {}, "additionalProperties": "no"},
]


def metaschema_valid(schema: dict[str, Any]) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return True


@pytest.mark.parametrize("schema", SCHEMAS)
def test_same_verdict_as_check_schema_every_time(schema: dict[str, Any]) -> None:
    for _ in range(2):  # the second answer comes from the cache
        problems = schema_problems(schema)
        invalid = [p for p in problems if "is not a valid JSON Schema" in p]
        assert bool(invalid) is not metaschema_valid(schema), problems


def test_the_place_is_named_inside_the_property() -> None:
    problems = schema_problems({"type": "object", "properties": {
        "ok": {"type": "string"}, "n": {"type": "integer", "minimum": "zero"}}})
    assert problems == ["inputSchema is not a valid JSON Schema at properties/n/minimum: "
                        "'zero' is not of type 'number'"]
    problems = schema_problems({"type": "object", "properties": {"n": {"type": "intger"}}})
    assert problems[0].startswith("inputSchema is not a valid JSON Schema at properties/n/type")
