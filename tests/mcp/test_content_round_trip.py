"""In the stateless 2026-07-28 era a resource's or a prompt's python function asks the
person (``ctx.elicit``) as a tool's does: ``resources/read`` and ``prompts/get`` answer
``resultType: input_required`` with the question, and the repeated request with the answer
(``inputResponses``, ``requestState``) completes. A completion still asks nobody."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import MODERN_META, ask, content_server

MODULE = '''\
from toolhost.backends.base import CallContext

FORM = {"type": "object", "properties": {"context": {"type": "string"}},
        "required": ["context"]}

async def prompt(ctx: CallContext) -> str:
    got = await ctx.elicit("What context should the prompt use?", FORM)
    return "context: " + (got.content.get("context", "none") if got.accepted else got.action)

async def read(id: str, ctx: CallContext) -> str:
    got = await ctx.elicit("Which version of " + id + "?", FORM)
    return id + "@" + got.content.get("context", "-")

def values(value: str) -> list[str]:
    return ["a", "b"]
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      doc:
        uri: "docs://{id}"
        python: asking:read
        complete: {id: "asking:values"}
    prompts:
      contextual: {python: asking:prompt}
"""
CAPS = {**MODERN_META, "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("asking"), CONFIG, {"asking": MODULE})


@pytest.mark.parametrize(("method", "params", "done"), [
    ("prompts/get", {"name": "contextual"},
     lambda r: r["messages"][0]["content"]["text"] == "context: prod"),
    ("resources/read", {"uri": "docs://x"},
     lambda r: r["contents"][0]["text"] == "x@prod" and r["ttlMs"] == 0)])
def test_a_content_function_asks_through_input_required(
        server: McpServer, method: str, params: dict[str, Any], done: Any) -> None:
    first = ask(server, method, {**params, "_meta": CAPS})["result"]
    assert first["resultType"] == "input_required"
    (key, request), = first["inputRequests"].items()
    assert request["method"] == "elicitation/create"
    assert request["params"]["requestedSchema"]["required"] == ["context"]
    answer = {key: {"action": "accept", "content": {"context": "prod"}}}
    second = ask(server, method, {**params, "_meta": CAPS, "inputResponses": answer,
                                  "requestState": first["requestState"]})["result"]
    assert second["resultType"] == "complete" and done(second), second
    # a client that cannot be asked: the function hears why, as a tool's does
    refused = ask(server, method, {**params, "_meta": MODERN_META})
    assert "input_required" not in str(refused)
    assert "'elicitation' capability" in str(refused)
    bad = ask(server, method, {**params, "_meta": CAPS, "requestState": "%%%"})
    assert bad["error"]["code"] == -32602


def test_a_declined_question_reaches_the_prompt_and_completions_ask_nobody(
        server: McpServer, tmp_path: Path) -> None:
    first = ask(server, "prompts/get", {"name": "contextual", "_meta": CAPS})["result"]
    (key, _), = first["inputRequests"].items()
    declined = ask(server, "prompts/get", {
        "name": "contextual", "_meta": CAPS, "inputResponses": {key: {"action": "decline"}},
        "requestState": first["requestState"]})["result"]
    assert declined["messages"][0]["content"]["text"] == "context: decline"
    completed = ask(server, "completion/complete", {
        "ref": {"type": "ref/resource", "uri": "docs://{id}"},
        "argument": {"name": "id", "value": ""}, "_meta": CAPS})["result"]
    assert completed["completion"]["values"] == ["a", "b"]
    assert completed["resultType"] == "complete"
