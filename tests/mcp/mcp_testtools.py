"""Small CompiledTool builders for the MCP core tests."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jsonschema

from toolhost.backends.base import CallContext, Invoke
from toolhost.compile.tool import CompiledTool
from toolhost.results import ToolResult

NAME_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"name": {"type": "string"}},
                               "required": ["name"], "additionalProperties": False}


async def greet(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.text(f"Hello, {arguments['name']}!")


def make_tool(name: str = "greet", invoke: Invoke = greet, *, server: str = "demo",
              schema: Mapping[str, Any] | None = None, **extra: Any) -> CompiledTool:
    schema = dict(schema if schema is not None else NAME_SCHEMA)
    return CompiledTool(name=name, server=server, description=f"The {name} tool",
                        input_schema=schema,
                        validator=jsonschema.Draft202012Validator(schema),
                        invoke=invoke, **extra)
