"""Requests whose shape JSON-RPC or MCP's schema rules out are refused, naming the request,
and nothing runs:

- a message with ``method`` and ``result`` (or ``error``) is neither a request nor an answer
  (JSON-RPC: a request has no ``result``; an answer has no ``method``): it was served as a
  request, so a client's garbled answer to an ``elicitation/create`` ran as a new call;
- ``params._meta.progressToken`` is a ``ProgressToken`` (string or number): an object, an
  array or a boolean was ignored (the request ran without progress, the client's mistake
  hidden); null is taken as no token;
- ``params._meta`` is an object: an array, a string or a number was ignored;
- an ``initialize``'s ``capabilities`` and ``clientInfo`` are objects: anything else was
  taken as "no capabilities"."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.modern import modern_meta
from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.mcp.jsonrpc import REMOVED_IN_MODERN
from toolhost.results import ToolResult

from .mcp_testtools import content_server, make_tool

RAN: list[str] = []
MODULE = '''\
def fetch(x: str) -> str:
    from tests.mcp.test_request_shapes import RAN
    RAN.append("fetch")
    return x

def values(value: str) -> list:
    from tests.mcp.test_request_shapes import RAN
    RAN.append("values")
    return [value]
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      f: {uri: "f://{x}", python: "shapesmod:fetch", complete: {x: "shapesmod:values"}}
    prompts:
      p: {python: "shapesmod:fetch"}
"""
PARAMS: dict[str, dict[str, Any]] = {
    "tools/call": {"name": "run", "arguments": {}},
    "resources/read": {"uri": "f://a"},
    "prompts/get": {"name": "p", "arguments": {"x": "a"}},
    "completion/complete": {"ref": {"type": "ref/resource", "uri": "f://{x}"},
                            "argument": {"name": "x", "value": "a"}},
    "tools/list": {}, "resources/list": {}, "ping": {},
    "initialize": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}},
}


async def run(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    RAN.append("run")
    return ToolResult.text("ran")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root: Path = tmp_path_factory.mktemp("shapes")
    core = content_server(root, CONFIG, {"shapesmod": MODULE})
    core.set_tools([make_tool("run", run, schema={})])
    return core


async def quiet(message: dict[str, Any]) -> None:
    pass


def answer(server: McpServer, message: dict[str, Any], peer: Any = None) -> Any:
    RAN.clear()

    async def go() -> Any:
        return await server.handle(message, notify=quiet, peer=peer)
    return anyio.run(go)


@pytest.mark.parametrize("method", list(PARAMS))
@pytest.mark.parametrize("member", ["result", "error"])
@pytest.mark.parametrize("request_id", [7, "seven", None])  # None: no id (a notification)
def test_a_request_that_is_also_an_answer_is_refused(server: McpServer, method: str,
                                                     member: str, request_id: Any) -> None:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": PARAMS[method],
                               member: {} if member == "result" else {"code": 1,
                                                                       "message": "m"}}
    if request_id is not None:
        message["id"] = request_id
    got = answer(server, message, peer="p")
    assert got is not None and got["id"] == request_id, got
    assert got["error"]["code"] == -32600
    assert f"a message with 'method' ({method})" in got["error"]["message"]
    assert RAN == []


BAD_TOKENS = {"object": {"a": 1}, "array": [1], "true": True, "false": False}
BAD_METAS = {"array": [], "string": "x", "number": 5, "boolean": True}
KINDS = {"object": "an object", "array": "an array", "true": "a boolean",
         "false": "a boolean", "string": "a string", "number": "a number",
         "boolean": "a boolean"}


@pytest.mark.parametrize(("era", "method"), [
    *(("legacy", method) for method in PARAMS),
    *(("modern", method) for method in PARAMS if method not in REMOVED_IN_MODERN)])
@pytest.mark.parametrize("bad", list(BAD_TOKENS))
def test_a_progress_token_that_is_no_string_or_number_is_refused(
        server: McpServer, method: str, bad: str, era: str) -> None:
    meta = {**(modern_meta() if era == "modern" else {}), "progressToken": BAD_TOKENS[bad]}
    got = answer(server, {"jsonrpc": "2.0", "id": 3, "method": method,
                          "params": {**PARAMS[method], "_meta": meta}}, peer="p")
    assert got["id"] == 3 and got["error"]["code"] == -32602, got
    assert got["error"]["message"] == (
        f"Invalid params: {method}: params._meta.progressToken must be a string or a number, "
        f"not {KINDS[bad]}")
    assert RAN == []


@pytest.mark.parametrize("method", list(PARAMS))
@pytest.mark.parametrize("bad", list(BAD_METAS))
def test_a_meta_that_is_no_object_is_refused(server: McpServer, method: str, bad: str) -> None:
    got = answer(server, {"jsonrpc": "2.0", "id": 4, "method": method,
                          "params": {**PARAMS[method], "_meta": BAD_METAS[bad]}})
    assert got["id"] == 4 and got["error"]["code"] == -32602, got
    assert got["error"]["message"] == (
        f"Invalid params: {method}: params._meta must be an object, not {KINDS[bad]}")
    assert RAN == []


@pytest.mark.parametrize("token", [None, 0, -1, 2**70, 1.5, "", "t" * 500])
@pytest.mark.parametrize("method", ["tools/call", "resources/read", "completion/complete"])
def test_tokens_of_the_schema_and_null_are_served(server: McpServer, token: Any,
                                                  method: str) -> None:
    got = answer(server, {"jsonrpc": "2.0", "id": 5, "method": method,
                          "params": {**PARAMS[method], "_meta": {"progressToken": token}}},
                 peer="p")
    assert "result" in got, got
    assert RAN


@pytest.mark.parametrize("member", ["capabilities", "clientInfo"])
@pytest.mark.parametrize("bad", list(BAD_METAS))
def test_an_initialize_whose_capabilities_or_client_info_is_no_object_is_refused(
        server: McpServer, member: str, bad: str) -> None:
    got = answer(server, {"jsonrpc": "2.0", "id": 6, "method": "initialize",
                          "params": {**PARAMS["initialize"], member: BAD_METAS[bad]}})
    assert got["id"] == 6 and got["error"]["code"] == -32602, got
    assert got["error"]["message"].startswith(
        f"Invalid params: initialize '{member}' must be an object (")
    assert got["error"]["message"].endswith(f"not {KINDS[bad]}")
