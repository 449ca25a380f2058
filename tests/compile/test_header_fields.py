"""``x-mcp-header`` annotations (SEP-2243): the fields a client mirrors into ``Mcp-Param-*``
headers, and a malformed annotation refused at load (a client following the spec would drop
the tool): through ``schema_problems``, what ``validate`` runs on a declared schema."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.compile.header_fields import annotated
from toolhost.compile.schema import schema_problems


def obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


GOOD = obj(region={"type": "string", "x-mcp-header": "Region"},
           n={"type": "integer", "x-mcp-header": "N"},
           flag={"type": "boolean", "x-mcp-header": "X-Flag_1.v~"},
           where=obj(zone={"type": "string", "x-mcp-header": "Zone"}),
           plain={"type": "string"})


def test_well_formed_annotations_are_the_fields_in_order() -> None:
    assert schema_problems(GOOD) == []
    assert annotated(GOOD) == [(("region",), "Region", "string"), (("n",), "N", "integer"),
                               (("flag",), "X-Flag_1.v~", "boolean"),
                               (("where", "zone"), "Zone", "string")]
    assert annotated(obj(a={"type": "string"})) == []


BAD = [
    (obj(a={"type": "string", "x-mcp-header": "Bad Name"}), "not an HTTP header name token"),
    (obj(a={"type": "string", "x-mcp-header": ""}), "not an HTTP header name token"),
    (obj(a={"type": "string", "x-mcp-header": "Région"}), "not an HTTP header name token"),
    (obj(a={"type": "string", "x-mcp-header": "a:b"}), "not an HTTP header name token"),
    (obj(a={"type": "string", "x-mcp-header": 5}), "not an HTTP header name token"),
    (obj(a={"type": "number", "x-mcp-header": "A"}), "string, integer or boolean"),
    (obj(a={"type": "object", "x-mcp-header": "A"}), "string, integer or boolean"),
    (obj(a={"type": ["string", "null"], "x-mcp-header": "A"}), "string, integer or boolean"),
    (obj(a={"type": "string", "x-mcp-header": "Dup"}, b={"type": "string",
                                                          "x-mcp-header": "dup"}),
     "already the header of property 'a'"),
    (obj(a={"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}),
     "through 'properties' alone"),
    ({**obj(a={"$ref": "#/$defs/r"}),
      "$defs": {"r": {"type": "string", "x-mcp-header": "A"}}}, "through 'properties' alone"),
    ({**obj(), "x-mcp-header": "Root"}, "through 'properties' alone"),
    ({**obj(), "anyOf": [obj(a={"type": "string", "x-mcp-header": "A"})]},
     "through 'properties' alone"),
]


@pytest.mark.parametrize(("schema", "words"), BAD)
def test_a_malformed_annotation_is_a_load_problem_and_counts_for_nothing(
        schema: dict[str, Any], words: str) -> None:
    problems = schema_problems(schema)
    assert len(problems) == 1 and "x-mcp-header" in problems[0], problems
    assert words in problems[0]
    assert annotated(schema) == []
