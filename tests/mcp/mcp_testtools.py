"""Small CompiledTool builders for the MCP core tests, and a declared server's core built from
a config (``content_server``) with a way to ask it one request."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import jsonschema

from tests.modern import MODERN_META as MODERN_META
from tests.modern import MODERN_VERSION as MODERN_VERSION
from toolhost.backends.base import CallContext, Invoke
from toolhost.compile.tool import CompiledTool
from toolhost.mcp import McpServer
from toolhost.results import ToolResult

# the _meta of a request of the stateless 2026-07-28 revision (no capabilities declared):
# MODERN_META, MODERN_VERSION (tests.modern)
# one directory resource, docs://kb/... for the files of ``docs`` beside the config
DOCS_CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      docs: {directory: docs, uri: "docs://kb"}
"""

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


def content_server(root: Path, config: str, modules: Mapping[str, str] | None = None,
                   name: str = "kb") -> McpServer:
    """The McpServer of server ``name`` in ``config`` (written to ``root``/kb.yaml), with
    ``modules`` (module name -> source) written beside it for its python entries; the modules
    are imported while it compiles, and forgotten after (each test file has its own)."""
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    for module, source in (modules or {}).items():
        (root / f"{module}.py").write_text(source)
    (root / "kb.yaml").write_text(config)
    try:
        compiled = compile_tools(load_config(root / "kb.yaml", layers=False))
    finally:
        for module in modules or {}:
            sys.modules.pop(module, None)
    return McpServer(name, "1", compiled.servers[name], content=compiled.content[name])


def ask(server: McpServer, method: str, params: Mapping[str, Any], **handle: Any
        ) -> dict[str, Any]:
    """``server``'s answer to one request (``handle``: the peer, notify, ...)."""
    async def go() -> dict[str, Any]:
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                      "params": dict(params)}, **handle)
        assert answer is not None
        return answer
    return anyio.run(go)


def read(server: McpServer, uri: str) -> dict[str, Any]:
    """``server``'s answer to ``resources/read`` of ``uri``."""
    return ask(server, "resources/read", {"uri": uri})
