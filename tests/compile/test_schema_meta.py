"""The metaschema check node by node: the same verdict and place as ``check_schema`` on the
whole schema, and jsonschema never handed a hostile schema's bulk (``anyOf`` of 20,000
``$ref`` items took 13 s, ``type: [1, 1, ...]`` 0.9 s)."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from toolhost.compile import schema_meta
from toolhost.compile.schema import schema_problems


def _whole(schema: Any) -> tuple[str, str] | None:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        return "/".join(map(str, exc.path)), exc.message
    return None


PIECES: list[Any] = [
    {"type": "string"}, {"type": "strin"}, {"minimum": "x"}, {"$ref": "#/$defs/a"},
    {"$ref": 3}, {"required": ["a", "a"]}, {"anyOf": []}, {"items": {"type": 1}},
    {"patternProperties": {"(": {}}}, {"patternProperties": {"^a": {"type": "nope"}}},
    {"properties": {"a": {"enum": 3}}}, {"$defs": {"x": {"const": 1}}}, True, False,
    {"dependentSchemas": {"a": {"maxLength": -1}}}, {"unevaluatedItems": {"type": []}},
    {"contentSchema": {"type": "null"}}, {"x-any": {"type": 5}}, {"oneOf": [True, 4]},
]


def _nested(rng: random.Random, depth: int) -> Any:
    piece = copy.deepcopy(rng.choice(PIECES))
    if depth == 0 or not isinstance(piece, dict):
        return piece
    place = rng.choice(["properties", "anyOf", "items", "$defs", "not", "prefixItems"])
    if place in ("properties", "$defs"):
        piece[place] = {f"p{i}": _nested(rng, depth - 1) for i in range(rng.randint(1, 3))}
    elif place in ("anyOf", "prefixItems"):
        piece[place] = [_nested(rng, depth - 1) for _ in range(rng.randint(1, 3))]
    else:
        piece[place] = _nested(rng, depth - 1)
    return piece


def test_same_verdict_as_the_whole_check() -> None:
    rng = random.Random(14)
    invalid = 0
    for _ in range(400):
        schema = _nested(rng, rng.randint(0, 4))
        schema_meta._CHECKED.clear()
        mine, whole = schema_meta.metaschema_problem(schema), _whole(schema)
        assert (mine is None) is (whole is None), (schema, mine, whole)
        invalid += mine is not None
    assert invalid > 100


@pytest.fixture
def handed() -> Iterator[list[int]]:
    """The size (JSON characters) of every schema jsonschema is handed to check."""
    sizes: list[int] = []
    real = Draft202012Validator.check_schema

    def counting(schema: Any, *args: Any, **kwargs: Any) -> None:
        sizes.append(len(json.dumps(schema)))
        real(schema, *args, **kwargs)

    schema_meta._CHECKED.clear()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Draft202012Validator, "check_schema", counting)
        yield sizes


def test_many_refs_in_a_list_are_checked_one_node_at_a_time(handed: list[int]) -> None:
    items = [{"$ref": f"#/$defs/a{i}"} for i in range(20_000)] + [{"$ref": 5}]
    defs = {f"a{i}": {"type": "string"} for i in range(20_000)}
    problems = schema_problems({"type": "object", "$defs": defs,
                                "properties": {"x": {"anyOf": items}}})
    assert problems == ["inputSchema is not a valid JSON Schema at properties/x/anyOf/20000/"
                        "$ref: 5 is not of type 'string'"]
    assert sum(handed) < 1_000, handed


def test_a_long_type_list_is_not_handed_to_jsonschema(handed: list[int]) -> None:
    problems = schema_problems({"type": "object", "properties": {"x": {"type": [1] * 20_000}}})
    assert len(problems) == 1 and problems[0].startswith(
        "inputSchema is not a valid JSON Schema at properties/x/type: [1, 1, "), problems
    assert problems[0].endswith("is not valid under any of the given schemas"), problems
    assert len(problems[0]) < 400
    assert sum(handed) < 1_000, handed


def test_a_short_wrong_type_list_keeps_jsonschemas_words() -> None:
    schema = {"type": "object", "properties": {"x": {"type": ["string", "string"]}}}
    assert schema_problems(schema) == [
        "inputSchema is not a valid JSON Schema at properties/x/type: "
        + _whole(schema["properties"]["x"])[1]]  # type: ignore[index]


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"p": {"type": "string", "pattern": "a" * 20_000}}},
    {"type": "object", "patternProperties": {"a" * 20_000: {"type": "string"}}},
])
def test_a_pattern_past_the_limit_is_said_before_it_is_compiled(schema: dict[str, Any]) -> None:
    # (hostile18's H18-5: jsonschema compiled a 1 MB pattern with `re` first: seconds)
    found = schema_meta.metaschema_problem(schema)
    assert found is not None
    assert "regular expression too long (20,000 characters" in found[1]
