"""The content methods of the transport-free core, fed hostile params: an error answer
naming the problem, never a crash, and the next request still answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.mcp import McpServer

from .mcp_testtools import MODERN_META

CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      readme: {file: readme.md}
      t: {uri: "t://{text}", python: "toolhost.demo:word_count"}
    prompts:
      p: {template: "Hi {{ who }}", arguments: {who: {required: true, complete: [ann, bob]}}}
"""


@pytest.fixture
def server(tmp_path: Path) -> McpServer:
    (tmp_path / "readme.md").write_text("read me\n")
    (tmp_path / "kb.yaml").write_text(CONFIG)
    compiled = compile_tools(load_config(tmp_path / "kb.yaml", layers=False))
    return McpServer("kb", "1", compiled.servers["kb"], content=compiled.content["kb"])


def ask(server: McpServer, method: str, params: Any) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                      "params": params})
        assert answer is not None
        return answer
    return anyio.run(go)


def test_capabilities_follow_what_is_declared(server: McpServer) -> None:
    caps = ask(server, "initialize", {"protocolVersion": "2025-11-25"})["result"]["capabilities"]
    assert caps["resources"] == {"subscribe": True, "listChanged": True}
    assert caps["prompts"] == {"listChanged": True} and caps["completions"] == {}
    bare = McpServer("x", "1", [])
    assert "resources" not in bare.capabilities
    assert ask(bare, "resources/list", {})["error"]["code"] == -32601


@pytest.mark.parametrize("method, params, code, words", [
    ("resources/read", {}, -32602, "string 'uri'"),
    ("resources/read", {"uri": ["x"]}, -32602, "string 'uri'"),
    ("resources/read", {"uri": ""}, -32602, "'uri' is empty"),
    ("resources/subscribe", {"uri": ""}, -32602, "'uri' is empty"),
    ("resources/read", {"uri": "t://" + "x" * 100_000}, -32602, "at most 8,192"),
    ("resources/read", {"uri": "t://a/b"}, -32002, "Resource not found"),
    ("resources/list", {"cursor": "garbage"}, -32602, "invalid cursor"),
    ("resources/list", {"cursor": {"a": 1}}, -32602, "cursor must be a string"),
    ("prompts/get", {"name": 5}, -32602, "string 'name'"),
    ("prompts/get", {"name": "nope"}, -32602, "unknown prompt"),
    ("prompts/get", {"name": "p", "arguments": {"who": {"deep": [[[]]]}}}, -32602,
     "must be a string"),
    ("prompts/get", {"name": "p", "arguments": [1]}, -32602, "object of strings"),
    ("prompts/get", {"name": "p", "arguments": {"who": "x" * 2_000_000}}, -32602,
     "at most 1,000,000"),
    ("completion/complete", {"ref": "p"}, -32602, "'ref' and 'argument'"),
    ("completion/complete", {"ref": {"type": "ref/x", "name": "p"}, "argument": {}}, -32602,
     "ref/prompt"),
    ("completion/complete", {"ref": {"type": "ref/prompt", "name": "p"},
                             "argument": {"name": "who", "value": 7}}, -32602, "value: string"),
])
def test_hostile_params_get_an_error_answer(server: McpServer, method: str, params: Any,
                                            code: int, words: str) -> None:
    answer = ask(server, method, params)
    assert answer["error"]["code"] == code
    assert words in answer["error"]["message"]
    assert len(answer["error"]["message"]) < 600  # never the whole hostile value echoed
    assert ask(server, "resources/read", {"uri": "toolhost://kb/readme"})["result"][
        "contents"][0]["text"] == "read me\n"


def test_modern_list_results_carry_the_revision_fields(server: McpServer) -> None:
    meta = MODERN_META
    listed = ask(server, "prompts/list", {"_meta": meta})["result"]
    assert listed["resultType"] == "complete" and listed["ttlMs"] == 0
    got = ask(server, "prompts/get", {"name": "p", "arguments": {"who": "ann"}, "_meta": meta})
    assert got["result"]["messages"][0]["content"]["text"] == "Hi ann"
    assert got["result"]["resultType"] == "complete"
    # every result 2026-07-28 calls cacheable has its hints (the read as well as the lists)
    for method, params in [("resources/list", {}), ("resources/templates/list", {}),
                           ("prompts/list", {}), ("resources/read", {"uri": "toolhost://kb/readme"})]:
        result = ask(server, method, {**params, "_meta": meta})["result"]
        assert (result["ttlMs"], result["cacheScope"], result["resultType"]) == (
            0, "private", "complete"), method
    assert "ttlMs" not in ask(server, "resources/read", {"uri": "toolhost://kb/readme"})["result"]
    # no such resource: -32602 in 2026-07-28 (SEP-2164), -32002 in the 2025 revisions; the
    # URI in data either way
    for params, code in [({"_meta": meta}, -32602), ({}, -32002)]:
        error = ask(server, "resources/read", {"uri": "toolhost://kb/nope", **params})["error"]
        assert (error["code"], error["data"]) == (code, {"uri": "toolhost://kb/nope"})


def test_subscriptions_are_checked_tracked_and_bounded(server: McpServer) -> None:
    assert ask(server, "resources/subscribe", {"uri": "toolhost://kb/readme"})["result"] == {}
    assert ask(server, "resources/subscribe", {"uri": "nope://x"})["error"]["code"] == -32002
    assert ask(server, "resources/subscribe", {"uri": 5})["error"]["code"] == -32602
    assert server.content and server._content.subscribers("toolhost://kb/readme") == [None]
    assert ask(server, "resources/unsubscribe", {"uri": "toolhost://kb/readme"})["result"] == {}
    assert server._content.subscribers("toolhost://kb/readme") == []
    for i in range(1001):  # a template URI per value: the per-connection cap holds
        answer = ask(server, "resources/subscribe", {"uri": f"t://{i}"})
    assert answer["error"]["code"] == -32602 and "at most 1,000" in answer["error"]["message"]
