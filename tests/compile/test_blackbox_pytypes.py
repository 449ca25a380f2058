"""Signatures an outsider writes from docs/backends.md: TypedDict key qualifiers and
``Annotated`` dict metadata (both used to fail the bind)."""

from __future__ import annotations

from typing import Annotated, NotRequired, Required, TypedDict

from toolhost.compile.schema import schema_problems
from toolhost.compile.signature import inspect_callable


class Query(TypedDict):
    table: str
    limit: NotRequired[int]
    note: Annotated[NotRequired[str], "free text"]


class Loose(TypedDict, total=False):
    name: Required[str]
    depth: int


def search(q: Query, loose: Loose) -> str:
    return f"{q} {loose}"


def test_typeddict_required_and_not_required_under_postponed_annotations() -> None:
    info = inspect_callable(search)
    assert schema_problems(info.input_schema) == []
    q = info.input_schema["properties"]["q"]
    assert q["properties"] == {"table": {"type": "string"}, "limit": {"type": "integer"},
                               "note": {"type": "string", "description": "free text"}}
    assert q["required"] == ["table"]
    loose = info.input_schema["properties"]["loose"]
    assert loose["properties"] == {"name": {"type": "string"}, "depth": {"type": "integer"}}
    assert loose["required"] == ["name"]


def count(n: Annotated[int, {"minimum": 0, "maximum": 9}, "how many"] = 1,
          tags: list[Annotated[str, {"minLength": 1}]] | None = None) -> str:
    return str(n)


def test_annotated_dict_metadata_is_merged() -> None:
    info = inspect_callable(count)
    assert schema_problems(info.input_schema) == []
    props = info.input_schema["properties"]
    assert props["n"] == {"type": "integer", "minimum": 0, "maximum": 9,
                          "description": "how many", "default": 1}
    assert props["tags"]["anyOf"][0] == {"type": "array",
                                         "items": {"type": "string", "minLength": 1}}
