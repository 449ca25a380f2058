"""An OpenAPI parameter is imported only when the importer writes it into the request the way
the document says (a scalar as its text, an array in a query as the parameter repeated, in a
header as its items joined by commas): one written another way (a style other than the
place's default, an object anywhere, an array in a path, an unexploded array in a query),
however its schema is spelled ($ref, allOf/anyOf/oneOf, a type list, properties without a
type), is dropped when optional and leaves its operation out when required, never sent in a
shape the service reads differently."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from toolhost.config.loader import load_config

OBJ = {"type": "object", "properties": {"a": {"type": "string"}}}
ARR = {"type": "array", "items": {"type": "string"}}
COMPONENTS = {"Obj": OBJ, "Arr": ARR, "ObjRef": {"$ref": "#/components/schemas/Obj"},
              "Str": {"type": "string"}}


def ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


# (place, extra keys of the parameter, whether it is imported)
CASES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "query string": ("query", {"schema": {"type": "string"}}, True),
    "query string by $ref": ("query", {"schema": ref("Str")}, True),
    "query form style said": ("query", {"style": "form", "schema": {"type": "string"}}, True),
    "query array exploded": ("query", {"schema": ARR}, True),
    "query array by $ref": ("query", {"schema": ref("Arr")}, True),
    "query content": ("query", {"content": {"application/json": {"schema": OBJ}}}, True),
    "header string": ("header", {"schema": {"type": "integer"}}, True),
    "path simple said": ("path", {"style": "simple", "schema": {"type": "string"}}, True),
    "deepObject inline": ("query", {"style": "deepObject", "schema": OBJ}, False),
    "deepObject by $ref": ("query", {"style": "deepObject", "schema": ref("Obj")}, False),
    "deepObject by two $refs": ("query", {"style": "deepObject", "schema": ref("ObjRef")},
                                False),
    "query object form": ("query", {"schema": OBJ}, False),
    "query object by allOf": ("query", {"schema": {"allOf": [ref("Obj")]}}, False),
    "query object by anyOf": ("query", {"schema": {"anyOf": [{"type": "string"}, OBJ]}},
                              False),
    "query object without type": ("query", {"schema": {"properties": {"a": {}}}}, False),
    "query type list": ("query", {"schema": {"type": ["string", "object"]}}, False),
    "query unexploded array": ("query", {"explode": False, "schema": ARR}, False),
    "query unexploded by $ref": ("query", {"explode": False, "schema": ref("Arr")}, False),
    "query unexploded by oneOf": ("query", {"explode": False, "schema": {
        "oneOf": [ref("Arr"), {"type": "null"}]}}, False),
    "query array without type": ("query", {"explode": False, "schema": {"items": {}}}, False),
    "spaceDelimited": ("query", {"style": "spaceDelimited", "schema": ARR}, False),
    "pipeDelimited": ("query", {"style": "pipeDelimited", "schema": ARR}, False),
    "header object": ("header", {"schema": ref("Obj")}, False),
    "header array": ("header", {"schema": ARR}, True),  # simple: the items joined by ", "
    "header array by $ref": ("header", {"schema": ref("Arr")}, True),
    "path matrix": ("path", {"style": "matrix", "schema": {"type": "string"}}, False),
    "path label": ("path", {"style": "label", "schema": {"type": "string"}}, False),
    "path array": ("path", {"schema": ref("Arr")}, False),
    "path object": ("path", {"schema": {"allOf": [OBJ]}}, False),
}


def load(tmp_path: Path, place: str, extra: dict[str, Any], required: bool) -> list[str]:
    param = {"name": "x", "in": place, **extra}
    if required or place == "path":
        param["required"] = True
    path = "/items/{x}" if place == "path" else "/items"
    doc = {"openapi": "3.1.0", "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": COMPONENTS},
           "paths": {path: {"get": {"operationId": "get", "parameters": [
               param, {"name": "other", "in": "query", "schema": {"type": "string"}}],
               "responses": {"200": {"description": "ok"}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    tool = loaded.servers["api"].tools.get("get")
    if tool is None:
        return []
    return sorted(tool.params) if tool.params else sorted(
        tool.input_schema.get("properties", {}) if tool.input_schema else {})


@pytest.mark.parametrize(("place", "extra", "imported"), list(CASES.values()), ids=list(CASES))
@pytest.mark.parametrize("required", [False, True])
def test_a_parameter_is_imported_only_when_it_is_written_as_the_document_says(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, place: str, extra: dict[str, Any],
        imported: bool, required: bool) -> None:
    with caplog.at_level(logging.WARNING, "toolhost.gateway"):
        found = load(tmp_path, place, extra, required)
    if imported:
        assert found == ["other", "x"]
    elif required or place == "path":  # the operation cannot be called as the document says
        assert found == []
        said = [r.getMessage() for r in caplog.records]
        assert any(f"operation 'get' is left out: its {place} parameter 'x' " in w and
                   "(not supported)" in w for w in said), said
    else:  # an optional one is dropped: the rest of the operation stands
        assert found == ["other"]
