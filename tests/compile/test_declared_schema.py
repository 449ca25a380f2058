"""A tool's declared input_schema is kept as written and still validates every call; schemas
that accept no value are load errors, located."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.errors import ConfigError

DECLARED = """\
toolhost: 1
servers:
  s:
    tools:
      t:
        command: [echo, "{{ name }}"]
        input_schema:
          $schema: https://json-schema.org/draft/2020-12/schema
          type: object
          $defs:
            address: {type: object, properties: {city: {type: string}}, required: [city]}
          properties:
            name: {type: string}
            address: {$ref: "#/$defs/address"}
          required: [name]
          additionalProperties: false
"""


def test_declared_schema_is_kept_and_validates(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(DECLARED)
    compiled = compile_tools(load_config(config, layers=False))
    tool = compiled.tool("s", "t")
    assert tool.descriptor()["inputSchema"]["$schema"].endswith("2020-12/schema")
    assert tool.descriptor()["inputSchema"]["$defs"]["address"]["required"] == ["city"]

    async def call(args: dict[str, object]) -> str:
        result = await tool.call(args, CallContext())
        return result.text_content

    assert anyio.run(call, {"name": "ann"}).strip() == "ann"
    assert "'city' is a required property" in anyio.run(call, {"name": "a", "address": {}})
    assert "Additional properties" in anyio.run(call, {"name": "a", "zip": 1})
    anyio.run(compiled.aclose)


@pytest.mark.parametrize("schema, message", [
    ("{type: object, properties: {a: {type: string, enum: []}}}", "enum: [] allows no value"),
    ("{type: object, properties: {a: {type: string, enum: [1, 2]}}}",
     "no enum value is of type 'string'"),
    ("{type: object, properties: {a: {type: integer, const: x}}}", "is not of type"),
    ("{type: object, properties: {a: {type: array, items: {type: string}, minItems: 3, "
     "maxItems: 1}}}", "minItems 3 is greater than maxItems 1"),
    ("{type: object, $defs: {d: {type: number, minimum: 2, maximum: 1}}}",
     "/$defs/d: minimum 2 is greater than maximum 1"),
    ("{type: object, properties: {a: {anyOf: [{type: string}, {enum: []}]}}}",
     "/properties/a/anyOf/1: enum: []"),
    ("{type: string}", "type: object at the root"),
])
def test_unsatisfiable_declared_schemas_are_located(tmp_path: Path, schema: str,
                                                    message: str) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                      "        command: [echo, hi]\n"
                      f"        input_schema: {schema}\n")
    with pytest.raises(ConfigError) as info:
        compile_tools(load_config(config, layers=False))
    text = str(info.value)
    assert "c.yaml:5:7: servers.s.tools.t.input_schema:" in text and message in text


def test_params_and_input_schema_together_is_an_error(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n      t:\n"
                      "        command: [echo, hi]\n        params: {a: string}\n"
                      "        input_schema: {type: object}\n")
    with pytest.raises(ConfigError, match="'params' or a whole 'input_schema', not both"):
        load_config(config, layers=False)
