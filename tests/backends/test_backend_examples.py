"""The backends-* example configs load, compile, and answer through the MCP core."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.mcp import McpServer

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "configs"


@pytest.mark.parametrize("name", ["backends-python.yaml", "backends-command.yaml",
                                  "backends-http.yaml"])
def test_example_compiles(name: str) -> None:
    config = load_config(EXAMPLES / name, layers=False)
    compiled = compile_tools(config)
    assert all(compiled.servers.values())


async def rpc(server: McpServer, method: str, params: dict[str, Any]) -> dict[str, Any]:
    response = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                    "params": params})
    assert response is not None and "result" in response, response
    result: dict[str, Any] = response["result"]
    return result


@pytest.mark.anyio
async def test_python_and_command_examples_through_the_mcp_core() -> None:
    python = compile_tools(load_config(EXAMPLES / "backends-python.yaml", layers=False))
    command = compile_tools(load_config(EXAMPLES / "backends-command.yaml", layers=False))
    demo = McpServer("demo", "1.0", python.servers["demo"])
    files = McpServer("files", "1.0", command.servers["files"])
    listed = {t["name"]: t for t in (await rpc(demo, "tools/list", {}))["tools"]}
    assert listed["add"]["inputSchema"]["required"] == ["a", "b"]
    assert listed["stats"]["outputSchema"]["properties"]["top"] == {
        "type": "array", "items": {"type": "string"}}
    added = await rpc(demo, "tools/call", {"name": "add", "arguments": {"a": 2, "b": 40}})
    assert added["content"] == [{"type": "text", "text": "42"}] and added["isError"] is False
    failed = await rpc(demo, "tools/call", {"name": "fail", "arguments": {"reason": "no"}})
    assert failed["isError"] is True
    assert failed["content"][0]["text"] == "Tool 'fail' failed: RuntimeError: no"
    counted = await rpc(files, "tools/call", {"name": "count", "arguments": {
        "pattern": "Teapot", "files": ["backends-data/catalog.json", "backends-data/hello.txt"]}})
    assert counted["content"][0]["text"] == ("backends-data/catalog.json:1\n"
                                             "backends-data/hello.txt:0\n")
    catalog = await rpc(files, "tools/call", {"name": "catalog", "arguments": {}})
    expected = json.loads((EXAMPLES / "backends-data" / "catalog.json").read_text())
    assert catalog["structuredContent"] == expected
    await python.aclose()
    await command.aclose()
