"""An upstream tool's schemas are checked against the metaschema node by node
(``gateway.compile._unusable``), as a config's are: a hostile upstream listing a schema with
a huge ``anyOf`` is checked in one pass (whole, jsonschema took 13 s at every listing), and an
invalid schema still leaves its tool out, said where."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolhost.gateway.compile import _unusable
from toolhost.gateway.reshape import Imported


def imported(schema: dict[str, Any], output: Any = None) -> Imported:
    return Imported(name="t", upstream_name="t", description="", input_schema=schema,
                    title=None, annotations={}, fixed={}, output_schema=output)


def test_a_huge_any_of_is_not_checked_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[int] = []
    real = Draft202012Validator.check_schema.__func__  # type: ignore[attr-defined]

    def counting(cls: Any, schema: Any, *args: Any, **kwargs: Any) -> None:
        checked.append(len(str(schema)))
        real(cls, schema, *args, **kwargs)

    monkeypatch.setattr(Draft202012Validator, "check_schema", classmethod(counting))
    schema = {"type": "object", "$defs": {"a": {"type": "string"}},
              "properties": {"x": {"anyOf": [{"$ref": "#/$defs/a"}] * 20_000}}}
    assert _unusable(imported(schema)) == ""
    # each distinct node once, none of them the whole schema
    assert len(checked) < 20 and max(checked, default=0) < 1_000


@pytest.mark.parametrize(("schema", "where"), [
    ({"type": "object", "properties": {"x": {"type": "strin"}}}, "properties/x/type"),
    ({"type": "object", "properties": {"x": {"anyOf": [{"type": "string"}, {"minimum": "1"}]}}},
     "properties/x/anyOf/1/minimum"),
    ({"type": "object", "required": "x"}, "required"),
])
def test_an_invalid_schema_leaves_its_tool_out_said_where(schema: dict[str, Any],
                                                          where: str) -> None:
    why = _unusable(imported(schema))
    assert why.startswith("its inputSchema is not valid JSON Schema (at ") and where in why


def test_an_invalid_output_schema_is_said_as_such() -> None:
    why = _unusable(imported({"type": "object"}, {"type": "object", "properties": 3}))
    assert why.startswith("its outputSchema is not valid JSON Schema")
