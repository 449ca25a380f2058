"""What an upstream's schema may hold: local references only, no cycles of references, RE2
patterns only, bounded size and depth (toolhost.compile.schema_safety)."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.compile.schema_safety import MAX_CHAIN, MAX_DEPTH, MAX_NODES, schema_problem


def one(prop: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"s": prop}, **more}


@pytest.mark.parametrize(
    "ref",
    [
        "http://127.0.0.1:18090/meta-data/iam",
        "https://169.254.169.254/latest",
        "file:///etc/passwd",
        "other.json",
        "other.json#/defs/a",
        "//evil.example/x",
        "urn:x:y",
        "/abs/path",
        "",
        "ftp://x/y",
    ],
)
@pytest.mark.parametrize("key", ["$ref", "$dynamicRef", "$recursiveRef"])
def test_a_reference_outside_the_schema_is_refused(ref: str, key: str) -> None:
    why = schema_problem(one({key: ref}))
    assert "is not local to the schema" in why and key in why


@pytest.mark.parametrize(
    "where",
    ["not", "if", "then", "else", "contains", "items", "additionalProperties", "propertyNames"],
)
def test_a_remote_reference_is_found_wherever_it_hides(where: str) -> None:
    assert "not local" in schema_problem(one({where: {"$ref": "http://x.example/s"}}))
    assert "not local" in schema_problem(
        {"$defs": {"a": {"$ref": "http://x.example/s"}}, "properties": {"s": {"$ref": "#/$defs/a"}}}
    )
    assert "not local" in schema_problem(one({"allOf": [{}, {"anyOf": [{"$ref": "https://x/"}]}]}))


def test_a_nested_id_is_refused() -> None:
    why = schema_problem(one({"$id": "http://evil.example/x", "$ref": "#/$defs/a"}))
    assert "nested $id" in why


@pytest.mark.parametrize(
    "schema",
    [
        one({"$ref": "#/$defs/nothing"}),
        one({"$ref": "#/properties/s/type"}),  # a string, not a schema
        one({"$ref": "#missing-anchor"}),
        one({"$ref": 7}),
    ],
)
def test_a_reference_to_nothing_is_refused(schema: dict[str, Any]) -> None:
    assert schema_problem(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#"},
        {"allOf": [{"$ref": "#"}]},
        one(
            {"$ref": "#/$defs/a"},
            **{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}},
        ),
        one({"$ref": "#/$defs/a"}, **{"$defs": {"a": {"not": {"$ref": "#/$defs/a"}}}}),
        one(
            {"$ref": "#/$defs/a"},
            **{"$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}}},
        ),
        one({"$ref": "#a"}, **{"$defs": {"x": {"$anchor": "a", "if": {"$ref": "#a"}}}}),
        one(
            {"$dynamicRef": "#m"},
            **{"$defs": {"x": {"$dynamicAnchor": "m", "oneOf": [{"$dynamicRef": "#m"}]}}},
        ),
        {"$defs": {"a": {"dependentSchemas": {"k": {"$ref": "#/$defs/a"}}}}, "$ref": "#/$defs/a"},
        one(
            {"$ref": "#/$defs/a%20b"},
            **{"$defs": {"a b": {"$ref": "#/$defs/a~1c"}, "a/c": {"$ref": "#/$defs/a b"}}},
        ),
    ],
)
def test_a_cycle_of_references_is_refused(schema: dict[str, Any]) -> None:
    assert "cycle" in schema_problem(schema)


@pytest.mark.parametrize(
    "schema",
    [
        {
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                    },
                }
            },
            "$ref": "#/$defs/node",
        },
        {"type": "object", "properties": {"next": {"$ref": "#"}}},
        {"type": "object", "additionalProperties": {"$ref": "#"}},
        one(
            {"$ref": "#/$defs/a"},
            **{"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"type": "string"}}},
        ),
        one({"$ref": "#name"}, **{"$defs": {"x": {"$anchor": "name", "type": "string"}}}),
        {
            "$id": "https://example.com/root",
            "type": "object",
            "properties": {"s": {"$ref": "#/$defs/a"}},
            "$defs": {"a": {"type": "string"}},
        },
        one(
            {"type": "string", "pattern": "^[a-z]+$"}, patternProperties={"^x-": {"type": "string"}}
        ),
        True,
    ],
)
def test_sound_schemas_pass(schema: Any) -> None:
    assert schema_problem(schema) == ""


@pytest.mark.parametrize("pattern", ["(?=a)b", "(?!a)b", "(?<=a)b", "(a)\\1", "(", "a{2,1}"])
def test_a_pattern_re2_cannot_compile_is_refused(pattern: str) -> None:
    assert "pattern" in schema_problem(one({"type": "string", "pattern": pattern}))
    assert "pattern" in schema_problem({"type": "object", "patternProperties": {pattern: {}}})
    assert "pattern" in schema_problem({"$defs": {"p": {"pattern": pattern}}})


def test_size_and_depth_are_bounded() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(MAX_DEPTH + 5):
        deep = {"type": "object", "properties": {"a": deep}}
    assert "nested more than" in schema_problem(deep)
    wide = {
        "type": "object",
        "properties": {f"p{k}": {"type": "string"} for k in range(MAX_NODES + 1)},
    }
    assert "more than" in schema_problem(wide)
    chain = {f"d{k}": {"$ref": f"#/$defs/d{k + 1}"} for k in range(MAX_CHAIN + 5)}
    chain[f"d{MAX_CHAIN + 5}"] = {"type": "string"}
    assert "chain" in schema_problem(one({"$ref": "#/$defs/d0"}, **{"$defs": chain}))
    shared = {"type": "string"}  # one subschema named many times is checked once
    assert (
        schema_problem(one({"allOf": [{"$ref": "#/$defs/s"}] * 1000}, **{"$defs": {"s": shared}}))
        == ""
    )
