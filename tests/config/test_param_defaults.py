"""A param's ``default`` is checked against its schema at load. A long list default under a
plain ``items`` schema is checked item by item (each distinct scalar once), not by
jsonschema's own walk (~5 us an item): the first error must be the one jsonschema finds."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost import regex
from toolhost.config.params import _first_error

LONG = 3000
CASES: dict[str, dict[str, Any]] = {
    "fine": {"type": "array", "items": {"type": "integer"}, "default": list(range(LONG))},
    "same strings": {"type": "array", "items": {"type": "string"}, "default": ["ab"] * LONG},
    "item over max": {"type": "array", "items": {"type": "integer", "maximum": 5},
                      "default": [1] * LONG + [7, "x"]},
    "maxItems first": {"type": "array", "maxItems": 3, "items": {"type": "integer"},
                       "default": [1] * LONG + ["x"]},
    "items first": {"type": "array", "items": {"type": "integer"}, "maxItems": 3,
                    "default": [1] * LONG + ["x"]},
    "wrong type": {"type": "string", "items": {"type": "integer"}, "default": [1] * LONG},
    "true is no integer": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True,
                           "default": [True] * LONG + [1]},
    "true is not 1": {"type": "array", "items": {"enum": [1]}, "default": [1] * LONG + [True]},
    "1.0 is 1": {"type": "array", "items": {"enum": [1]}, "default": [1] * LONG + [1.0]},
    "objects": {"type": "array", "items": {"type": "object", "required": ["a"]},
                "default": [{"a": 1}] * LONG + [{"b": 1}]},
    "1.5 is no integer": {"type": "array", "items": {"type": "integer"},
                          "default": [1] * LONG + [2.0, 1.5]},
    "numbers": {"type": "array", "items": {"type": "number", "description": "d"},
                "default": [1, 2.5] * LONG + [True]},
    "booleans": {"type": "array", "items": {"type": "boolean"}, "default": [True] * LONG + [0]},
    "nulls": {"type": "array", "items": {"type": "null", "title": "t"},
              "default": [None] * LONG + [""]},
    "strings": {"type": "array", "items": {"type": "string"},
                "default": [str(i) for i in range(LONG)] + [None]},
    "type list": {"type": "array", "items": {"type": ["integer", "string"]},
                  "default": [1, "a"] * LONG + [1.5]},
    "prefixItems": {"type": "array", "prefixItems": [{"type": "string"}],
                    "items": {"type": "integer"}, "default": [1] * LONG},
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_first_error_is_jsonschemas(name: str) -> None:
    schema = CASES[name]
    cls = regex.validator_class()
    ours = _first_error(cls, schema, schema["default"])
    theirs = next(iter(cls(schema).iter_errors(schema["default"])), None)
    assert (ours is None) == (theirs is None)
    if ours is not None and theirs is not None:
        assert ours.message == theirs.message
