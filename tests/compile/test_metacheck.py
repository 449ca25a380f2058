"""The quick metaschema check never accepts what ``check_schema`` rejects, and does accept the
shapes tool schemas have (so ``validate`` really skips jsonschema)."""

from __future__ import annotations

import copy
import random
from typing import Any

import jsonschema
import pytest

from toolhost.compile.metacheck import proven_valid


def _jsonschema_accepts(schema: Any) -> bool:
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError:
        return False
    return True


COMMON: list[Any] = [
    {"type": "object", "properties": {"name": {"type": "string", "pattern": "^[a-z]+$",
                                               "description": "Name of the note"}},
     "required": ["name"]},
    {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
     "required": ["a", "b"], "additionalProperties": False},
    {"type": "object", "properties": {
        "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                 "uniqueItems": True},
        "mode": {"enum": ["a", "b", None], "default": "a"},
        "x": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]},
        "m": {"type": "object", "additionalProperties": {"type": ["string", "number"]},
              "patternProperties": {"^x-": {"type": "string"}}},
        "c": {"const": 3, "title": "C", "examples": [3], "deprecated": False}}},
    {"type": "object", "properties": {}, "$defs": {"p": {"type": "string", "maxLength": 9}}},
    True, {},
]

# Values each keyword may be given: right, wrong, and borderline.
VALUES: list[Any] = [
    "string", "strin", ["string", "null"], ["string", "string"], [], 0, -1, 1.5, 2.0, True,
    None, "(", "^a+$", "[", {"type": "string"}, [{"type": "string"}], {"x": {}}, {"x": 3},
    ["a", "a"], ["a", 1], float("nan"), 10**30, {1: {}}, "#/$defs/a", "#", "#/a b", "#a",
    "#/%zz", "#/%41", "https://json-schema.org/draft/2020-12/schema", "http://x/#", "a_1",
    "-a", "a:b", "\\", "",
]
KEYWORDS = ["type", "enum", "const", "default", "examples", "title", "description", "format",
            "deprecated", "readOnly", "uniqueItems", "minimum", "exclusiveMaximum",
            "multipleOf", "minLength", "maxItems", "minContains", "required", "pattern",
            "additionalProperties", "items", "not", "if", "properties", "$defs",
            "patternProperties", "anyOf", "allOf", "oneOf", "prefixItems", "$ref", "$schema",
            "$dynamicRef", "$anchor", "$dynamicAnchor", "x-unknown"]


@pytest.mark.parametrize("schema", COMMON)
def test_common_shapes_are_proven(schema: Any) -> None:
    assert _jsonschema_accepts(schema)
    assert proven_valid(schema)


def test_never_accepts_what_check_schema_rejects() -> None:
    rng = random.Random(18)
    cases = [{k: v} for k in KEYWORDS for v in VALUES]
    for _ in range(1500):  # nested: a keyword's value inside a property or a list of schemas
        inner = {rng.choice(KEYWORDS): rng.choice(VALUES)}
        outer = copy.deepcopy(rng.choice(COMMON[:4]))
        place = rng.choice(["prop", "anyOf", "items"])
        if place == "prop":
            outer["properties"]["z"] = inner
        elif place == "anyOf":
            outer["anyOf"] = [inner, {"type": "object"}]
        else:
            outer["items"] = inner
        cases.append(outer)
    proven = accepted = 0
    for schema in cases:
        accepts = _jsonschema_accepts(schema)
        accepted += accepts
        if proven_valid(schema):
            proven += 1
            assert accepts, schema
    assert proven > accepted // 2  # the quick path is taken, not only safe


def test_deep_schemas_are_left_to_jsonschema() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(100):
        schema = {"items": schema}
    assert not proven_valid(schema)


def test_a_long_ref_is_proven_in_memory_of_its_size() -> None:
    import tracemalloc

    for ref in ("#/" + "a" * 500_000, "#/" + "%41" * 170_000, "https://x.org/" + "a" * 500_000):
        key = "$schema" if ref.startswith("http") else "$ref"
        tracemalloc.start()
        try:
            assert proven_valid({key: ref})
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 8 * len(ref), peak
