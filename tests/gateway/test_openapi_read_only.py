"""A property the document marks ``readOnly`` is not asked of the model (OpenAPI: it is not
sent in a request, and its being required applies to responses only), whether it is marked
on the property or on the component its ``$ref`` names, in a JSON body and a form body."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from toolhost.config.loader import load_config

S = "#/components/schemas/"
PET = {"type": "object", "required": ["id", "name", "born"],
       "properties": {"id": {"type": "integer", "readOnly": True},
                      "name": {"type": "string"},
                      "born": {"$ref": S + "Stamp"},
                      "secret": {"type": "string", "writeOnly": True},
                      "owner": {"type": "object", "required": ["oid", "who"], "properties": {
                          "oid": {"type": "string", "readOnly": True},
                          "who": {"type": "string"}}}}}
COMPONENTS = {"Pet": PET, "Stamp": {"type": "string", "readOnly": True}}


def tools(tmp_path: Path, version: str) -> dict[str, Any]:
    ok = {"200": {"description": "ok"}}
    doc = {"openapi": version, "info": {"title": "t", "version": "1"},
           "servers": [{"url": "http://127.0.0.1:1/v1"}],
           "components": {"schemas": COMPONENTS},
           "paths": {"/pets": {
               "post": {"operationId": "createPet", "responses": ok, "requestBody": {
                   "required": True,
                   "content": {"application/json": {"schema": {"$ref": S + "Pet"}}}}},
               "put": {"operationId": "formPet", "responses": ok, "requestBody": {
                   "required": True, "content": {"application/x-www-form-urlencoded": {
                       "schema": {"$ref": S + "Pet"}}}}}}}}
    (tmp_path / "api.json").write_text(json.dumps(doc))
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\nservers:\n  api:\n    openapi: api.json\n")
    loaded = load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path)}, layers=False)
    return dict(loaded.servers["api"].tools)


def test_read_only_properties_are_not_asked_for(tmp_path: Path) -> None:
    for version in ("3.0.3", "3.1.0"):
        found = tools(tmp_path, version)
        pet = found["createPet"].input_schema["$defs"]["Pet"]
        assert sorted(pet["properties"]) == ["name", "owner", "secret"], version
        assert pet["required"] == ["name"]
        assert pet["properties"]["owner"]["required"] == ["who"]
        assert sorted(pet["properties"]["owner"]["properties"]) == ["who"]
        # a body with only what the model can know is valid
        schema = found["createPet"].input_schema
        assert not list(Draft202012Validator(schema).iter_errors({"body": {"name": "rex"}}))
        form = found["formPet"].input_schema
        assert sorted(form["properties"]) == ["name", "owner", "secret"]
        assert form["required"] == ["name"]
