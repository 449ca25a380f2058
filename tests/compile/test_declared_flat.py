"""The usual schema's defaults are read straight off it (``_flat_defaults``): what that
finds is what the walk finds, for any schema, and any schema it cannot read flat (nested,
referring, a property of properties or items) goes to the walk."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import toolhost.compile.declared as declared

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5))
_KEYS = st.sampled_from(["type", "default", "description", "enum", "const", "items",
                         "properties", "$ref", "allOf", "anyOf", "oneOf", "required"])


def _schemas() -> st.SearchStrategy[Any]:
    return st.recursive(
        _SCALARS,
        lambda inner: st.one_of(st.lists(inner, max_size=3),
                                st.dictionaries(_KEYS, inner, max_size=4),
                                st.dictionaries(st.text(max_size=3), inner, max_size=3)),
        max_leaves=20)


def _walked(schema: dict[str, Any]) -> Any:
    walk = declared._Walk(schema)
    walk.read([p for p in walk.parts(schema) if isinstance(p.get("properties"), dict)])
    return walk.build()


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=3), _schemas(), max_size=4),
       st.dictionaries(_KEYS, _schemas(), max_size=3))
def test_flat_reading_agrees_with_the_walk(props: dict[str, Any], extra: dict[str, Any]
                                           ) -> None:
    schema = {**extra, "properties": props}
    flat = declared._flat_defaults(schema)
    if flat is not None:
        assert flat == _walked(schema)


def test_the_usual_schema_is_read_flat() -> None:
    schema = {"type": "object", "properties": {
        "q": {"type": "string"}, "limit": {"type": "integer", "default": 10},
        "tags": {"type": "string", "enum": ["a", "b"], "default": "a"}},
        "required": ["q"], "additionalProperties": False}
    assert declared._flat_defaults(schema) == {"limit": 10, "tags": "a"}
    assert declared.declared_defaults(schema) == {"limit": 10, "tags": "a"}


def test_nested_or_referring_schemas_take_the_walk() -> None:
    for schema in ({"properties": {"o": {"properties": {"x": {"default": 1}}}}},
                   {"properties": {"o": {"items": {"properties": {"x": {"default": 1}}}}}},
                   {"properties": {"o": {"$ref": "#/$defs/O"}},
                    "$defs": {"O": {"properties": {"x": {"default": 1}}}}},
                   {"allOf": [{"properties": {"x": {"default": 1}}}], "properties": {}}):
        assert declared._flat_defaults(schema) is None
        assert declared.declared_defaults(schema) != {}  # the walk found the default inside
