from __future__ import annotations

import datetime as dt
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Optional, TypedDict, Union

import pydantic
import pytest
from jsonschema import Draft202012Validator

from toolhost.backends.base import CallContext
from toolhost.compile.schema import schema_problems
from toolhost.compile.signature import UnsupportedType, inspect_callable
from toolhost.results import ToolResult


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Point(TypedDict):
    x: int
    y: int


class Partial(TypedDict, total=False):
    label: str


@dataclass
class Box:
    width: int
    height: int = 1
    tags: list[str] = field(default_factory=list)


@dataclass
class Tree:
    value: int
    children: list[Tree] = field(default_factory=list)


class Opaque:
    pass


class Person(pydantic.BaseModel):
    name: str
    age: int = 0


def props(fn: Any) -> dict[str, Any]:
    info = inspect_callable(fn)
    assert schema_problems(info.input_schema) == []
    return dict(info.input_schema["properties"])


def test_scalars_defaults_and_required() -> None:
    def f(s: str, i: int, n: float, b: bool, d: int = 4) -> None: ...
    info = inspect_callable(f)
    assert info.input_schema["properties"] == {
        "s": {"type": "string"}, "i": {"type": "integer"}, "n": {"type": "number"},
        "b": {"type": "boolean"}, "d": {"type": "integer", "default": 4}}
    assert info.input_schema["required"] == ["s", "i", "n", "b"]
    assert info.input_schema["additionalProperties"] is False


def test_containers() -> None:
    def f(a: list[int], b: dict[str, float], c: tuple[int, ...], d: tuple[str, int],
          e: set[str], g: Sequence[bool], h: Mapping[str, list[str]]) -> None: ...
    p = props(f)
    assert p["a"] == {"type": "array", "items": {"type": "integer"}}
    assert p["b"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert p["c"] == {"type": "array", "items": {"type": "integer"}}
    assert p["d"]["prefixItems"] == [{"type": "string"}, {"type": "integer"}]
    assert p["d"]["minItems"] == p["d"]["maxItems"] == 2 and "items" in p["d"]
    assert p["e"] == {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert p["g"] == {"type": "array", "items": {"type": "boolean"}}
    assert p["h"]["additionalProperties"] == {"type": "array", "items": {"type": "string"}}


def test_optional_union_literal_enum() -> None:
    def f(a: int | None, b: Optional[str] = None, c: Literal["x", "y"] = "x",  # noqa: UP045
          d: Color = Color.RED, e: Union[int, str] = 0, g: list[int] | None = None) -> None: ...  # noqa: UP007
    info = inspect_callable(f)
    p = info.input_schema["properties"]
    assert p["a"] == {"type": ["integer", "null"]}
    assert info.input_schema["required"] == ["a"]  # nullable but not defaulted: still required
    assert p["b"] == {"type": ["string", "null"], "default": None}
    assert p["c"] == {"type": "string", "enum": ["x", "y"], "default": "x"}
    assert p["d"]["enum"] == ["red", "green"] and p["d"]["default"] == "red"  # the value sent
    assert p["e"]["type"] == ["integer", "string"]
    assert p["g"] == {"anyOf": [{"type": "array", "items": {"type": "integer"}},
                                {"type": "null"}], "default": None}


def test_nested_objects() -> None:
    def f(p: Point, q: Partial, box: Box, who: Person) -> None: ...
    info = inspect_callable(f)
    p = info.input_schema["properties"]
    assert p["p"]["properties"] == {"x": {"type": "integer"}, "y": {"type": "integer"}}
    assert p["p"]["required"] == ["x", "y"]
    assert "required" not in p["q"]
    assert p["box"]["required"] == ["width"]
    assert p["box"]["properties"]["height"] == {"type": "integer", "default": 1}
    assert p["who"]["properties"]["name"]["type"] == "string"
    assert p["who"]["required"] == ["name"]


def test_recursive_dataclass_goes_to_defs() -> None:
    def f(tree: Tree) -> None: ...
    info = inspect_callable(f)
    assert info.input_schema["properties"]["tree"] == {"$ref": "#/$defs/Tree"}
    assert "Tree" in info.input_schema["$defs"]
    validator = Draft202012Validator(info.input_schema)
    assert validator.is_valid({"tree": {"value": 1, "children": [{"value": 2}]}})
    assert not validator.is_valid({"tree": {"value": 1, "children": [{"value": "x"}]}})


def test_annotated_descriptions_and_docstring_styles() -> None:
    def google(a: Annotated[int, "from annotated"], b: str) -> None:
        """Summary line
        continues here.

        More text.

        Args:
            a: ignored, Annotated wins.
            b (str): The b
                over two lines.
        """

    info = inspect_callable(google)
    assert info.description == "Summary line continues here."
    assert info.input_schema["properties"]["a"]["description"] == "from annotated"
    assert info.input_schema["properties"]["b"]["description"] == "The b over two lines."

    def numpy(a: int, b: int) -> None:
        """Numpy style.

        Parameters
        ----------
        a : int
            First.
        b : int
            Second,
            continued.

        Returns
        -------
        None
        """

    p = inspect_callable(numpy).input_schema["properties"]
    assert p["a"]["description"] == "First."
    assert p["b"]["description"] == "Second, continued."

    def rest(a: int, b: int) -> None:
        """reST style.

        :param a: Alpha.
        :param int b: Beta
            more.
        :returns: nothing
        """

    p = inspect_callable(rest).input_schema["properties"]
    assert p["a"]["description"] == "Alpha."
    assert p["b"]["description"] == "Beta more."


def test_context_param_is_excluded_and_async_detected() -> None:
    async def f(x: int, ctx: CallContext) -> str:
        return ""
    info = inspect_callable(f)
    assert list(info.input_schema["properties"]) == ["x"]
    assert info.context_param == "ctx" and info.is_async


def test_output_schema_from_return_annotation() -> None:
    def obj() -> Point: ...
    def many() -> list[int]: ...
    def scalar() -> int: ...
    assert inspect_callable(obj).output_schema == {
        "type": "object", "title": "Point", "additionalProperties": False,
        "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
        "required": ["x", "y"]}
    assert inspect_callable(many).output_schema == {
        "type": "object", "properties": {"result": {"type": "array", "items": {"type": "integer"}}},
        "required": ["result"]}
    assert inspect_callable(scalar).output_schema is None


def test_a_function_returning_tool_result_promises_no_output_schema() -> None:
    def shaped() -> ToolResult: ...
    def either() -> dict[str, int] | ToolResult: ...
    assert inspect_callable(shaped).output_schema is None
    assert inspect_callable(either).output_schema is None


def test_kwargs_allow_extra_and_converters_build_objects() -> None:
    def f(box: Box, color: Color, when: dt.date, pts: list[Point], **rest: Any) -> None: ...
    info = inspect_callable(f)
    assert "additionalProperties" not in info.input_schema
    conv = info.converters
    assert conv["box"]({"width": 2, "tags": ["a"]}) == Box(width=2, tags=["a"])
    assert conv["color"]("green") is Color.GREEN
    assert conv["when"]("2024-02-29") == dt.date(2024, 2, 29)
    assert "pts" not in conv  # TypedDicts of ints are already the right JSON


def test_recursive_converter() -> None:
    def f(tree: Tree) -> None: ...
    conv = inspect_callable(f).converters["tree"]
    assert conv({"value": 1, "children": [{"value": 2}]}) == Tree(1, [Tree(2)])


def test_unsupported_annotation_names_the_parameter() -> None:
    def f(good: int, bad: dict[int, str]) -> None: ...
    with pytest.raises(UnsupportedType, match="parameter 'bad'"):
        inspect_callable(f)

    def g(thing: Opaque) -> None: ...
    with pytest.raises(UnsupportedType, match="parameter 'thing'"):
        inspect_callable(g)
