"""A served MCP server built from hand-made CompiledTools (no config loader needed).

Run as ``python fixture_server.py stdio`` or ``python fixture_server.py http PORT``; used by
the transport tests to exercise both eras independently of the config layers.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, Literal

import anyio
from jsonschema import Draft202012Validator

from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.mcp import McpServer
from toolhost.permissions.decision import Decision
from toolhost.results import ToolResult
from toolhost.serve.guard import permission_guard
from toolhost.serve.run import serve_http, serve_stdio
from toolhost.serve.served import ServedServer, expose


def tool(server: str, name: str, schema: dict[str, Any], invoke: Any,
         output: Literal["structured", "text"] = "text") -> CompiledTool:
    return CompiledTool(name=name, server=server, description=f"{name} tool",
                        input_schema=schema, validator=Draft202012Validator(schema),
                        invoke=invoke, output=output)


async def greet(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.text(f"Hello, {arguments['name']}!")


async def add(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.json({"sum": arguments["a"] + arguments["b"]})


async def slow(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    steps = int(arguments["steps"])
    try:
        for i in range(steps):
            await ctx.progress(i + 1, steps, f"step {i + 1}")
            await anyio.sleep(float(arguments.get("pause", 0.05)))
    except anyio.get_cancelled_exc_class():
        if arguments.get("marker"):  # lets a test see that the call really stopped
            with open(arguments["marker"], "w") as f:
                f.write("cancelled")
        raise
    return ToolResult.text(f"done after {steps} steps")


class Gate:
    """Denies mcp__demo__add when a is 13; everything else allowed."""

    async def check(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        if tool_name == "mcp__demo__add" and tool_input.get("a") == 13:
            return Decision("deny", message="13 is unlucky (rule: deny add when a == 13)")
        if tool_name == "mcp__demo__slow" and tool_input.get("steps") == 0:
            return Decision("ask")
        return Decision("allow")


STRING = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
NUMBERS = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
           "required": ["a", "b"]}
STEPS = {"type": "object", "properties": {"steps": {"type": "integer"},
                                          "pause": {"type": "number"},
                                          "marker": {"type": "string"}}, "required": ["steps"]}


def build() -> ServedServer:
    servers = {"demo": (tool("demo", "greet", STRING, greet),
                        tool("demo", "add", NUMBERS, add, "structured"),
                        tool("demo", "slow", STEPS, slow))}
    tools, names = expose(servers, ["demo"])
    core = McpServer("demo", "1.2.3", tools)
    served = ServedServer(core, names)
    core.guard = permission_guard(Gate(), served.wire_name)
    return served


def main() -> None:
    served = build()
    if sys.argv[1] == "stdio":
        anyio.run(lambda: serve_stdio(served))
    else:
        anyio.run(lambda: serve_http(served, host="127.0.0.1", port=int(sys.argv[2])))


if __name__ == "__main__":
    main()
