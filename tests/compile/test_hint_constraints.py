"""Python hints that carry constraints or extra arguments become the schema, and are
enforced: Annotated constraints, **kwargs: T, *args refused, Enum defaults shown."""

from __future__ import annotations

import enum
from typing import Annotated

import annotated_types as at
import pytest
from pydantic import Field

from toolhost.compile.pytypes import UnsupportedType
from toolhost.compile.signature import inspect_callable


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def rated(stars: Annotated[int, Field(ge=1, le=5, description="1 to 5")],
          name: Annotated[str, at.MinLen(2), at.MaxLen(8)] = "ann",
          tags: Annotated[list[str], Field(max_length=3)] = [],  # noqa: B006
          ratio: Annotated[float, at.Interval(gt=0, lt=1)] = 0.5,
          code: Annotated[str, Field(pattern="^[A-Z]{3}$")] = "ABC",
          color: Color = Color.BLUE) -> str:
    return ""


def test_annotated_constraints_and_enum_defaults() -> None:
    props = inspect_callable(rated).input_schema["properties"]
    assert props["stars"] == {"type": "integer", "minimum": 1, "maximum": 5,
                              "description": "1 to 5"}
    assert props["name"]["minLength"] == 2 and props["name"]["maxLength"] == 8
    assert props["tags"]["maxItems"] == 3
    assert props["ratio"]["exclusiveMinimum"] == 0 and props["ratio"]["exclusiveMaximum"] == 1
    assert props["code"]["pattern"] == "^[A-Z]{3}$"
    assert props["color"]["default"] == "blue" and props["color"]["enum"] == ["red", "blue"]


def test_constraints_are_enforced() -> None:
    from jsonschema import Draft202012Validator

    validator = Draft202012Validator(inspect_callable(rated).input_schema)
    assert validator.is_valid({"stars": 5})
    for bad in ({"stars": 9}, {"stars": 0}, {"stars": 3, "name": "x"},
                {"stars": 3, "tags": ["a", "b", "c", "d"]}, {"stars": 3, "ratio": 1.0},
                {"stars": 3, "code": "abc"}):
        assert not validator.is_valid(bad), bad


def test_kwargs_values_are_typed() -> None:
    def f(a: int, **extra: str) -> str:
        return ""

    schema = inspect_callable(f).input_schema
    assert schema["additionalProperties"] == {"type": "string"}

    def g(**anything: object) -> str:
        return ""

    assert "additionalProperties" not in inspect_callable(g).input_schema


def test_star_args_are_refused_with_the_fix() -> None:
    def f(*paths: str) -> str:
        return ""

    with pytest.raises(UnsupportedType, match=r"'\*paths' cannot be passed by keyword.*list"):
        inspect_callable(f)
