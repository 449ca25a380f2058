"""SEP-2243: a 2026-07-28 request's ``Mcp-Method`` / ``Mcp-Name`` headers must agree with its
body (else HTTP 400, JSON-RPC -32020, and the core never sees it): a gateway in front routes
and authorizes on the headers while the server runs the body. Missing, mismatched, repeated,
case-changed, whitespace-padded, base64-wrapped (unicode, CR LF), raw UTF-8 and 1 MB values;
2025 requests, notifications and batches. In process: the real ASGI app, a recording core."""

from __future__ import annotations

import base64
import json
from collections.abc import Hashable, Mapping
from typing import Any

import anyio
import httpx
import pytest

from toolhost.serve.http import HttpServer

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}
ACCEPT = ("accept", "application/json, text/event-stream")


class Recorder:
    """A core that answers every request with an empty result and remembers what it ran."""

    def __init__(self) -> None:
        self.seen: list[Mapping[str, Any]] = []

    async def handle(self, message: Mapping[str, Any], *, notify: Any = None,
                     peer: Hashable = None) -> dict[str, Any] | None:
        self.seen.append(message)
        if "id" not in message:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "result": {}}


def call(method: str, params: dict[str, Any] | None = None, *, modern: bool = True,
         request: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method,
                            "params": {**(params or {}), **({"_meta": MODERN} if modern else {})}}
    if request:
        body["id"] = 7
    return body


def post(body: Any, headers: list[tuple[str, str | bytes]]) -> tuple[int, Any, list[Any]]:
    """POST ``body`` with exactly ``headers`` (repeats kept) to a fresh server: the status,
    the decoded answer (None for 202) and the messages the core ran."""
    core = Recorder()
    app = HttpServer(core).app

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            return await client.post("/mcp", content=json.dumps(body).encode(), headers=[
                ("content-type", "application/json"), ACCEPT, *headers])

    answer = anyio.run(run)
    return answer.status_code, answer.json() if answer.content else None, core.seen


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


TOOL = call("tools/call", {"name": "search", "arguments": {}})
UNICODE = call("tools/call", {"name": "café_检索", "arguments": {}})
CRLF = call("prompts/get", {"name": "two\r\nlines"})
READ = call("resources/read", {"uri": "toolhost://kb/runbook"})
PROMPT = call("prompts/get", {"name": "brief"})
LIST = call("tools/list")
BIG = "n" * 1_000_000
M, N = "mcp-method", "mcp-name"

AGREE = [
    ("method only", LIST, [(M, "tools/list")]),
    ("tool", TOOL, [(M, "tools/call"), (N, "search")]),
    ("prompt", PROMPT, [(M, "prompts/get"), (N, "brief")]),
    ("resource", READ, [(M, "resources/read"), (N, "toolhost://kb/runbook")]),
    ("header names in any case", TOOL, [("MCP-METHOD", "tools/call"), ("Mcp-Name", "search")]),
    ("whitespace around values", TOOL, [(M, " \ttools/call "), (N, "  search\t")]),
    ("with the version header", TOOL, [(M, "tools/call"), (N, "search"),
                                       ("mcp-protocol-version", "2026-07-28")]),
    ("unicode name, base64", UNICODE, [(M, "tools/call"), (N, b64("café_检索"))]),
    ("unicode name, raw UTF-8", UNICODE, [(M, "tools/call"), (N, "café_检索".encode())]),
    ("CR LF name, base64", CRLF, [(M, "prompts/get"), (N, b64("two\r\nlines"))]),
    ("Mcp-Name on a method without a name", LIST, [(M, "tools/list"), (N, "whatever")]),
    ("1 MB name that agrees", call("tools/call", {"name": BIG}),
     [(M, "tools/call"), (N, BIG)]),
    ("2025 request without headers", call("tools/list", modern=False), []),
    ("2025 request with agreeing headers", call("tools/call", {"name": "search"}, modern=False),
     [(M, "tools/call"), (N, "search")]),
    ("notification without headers", call("notifications/cancelled", request=False), []),
    ("a client's answer with a stray Mcp-Method", {"jsonrpc": "2.0", "id": "toolhost-1",
                                                   "result": {}}, [(M, "tools/call")]),
]

DISAGREE = [
    ("method mismatch", LIST, [(M, "prompts/list")], "Mcp-Method 'prompts/list'"),
    ("method missing", LIST, [], "Mcp-Method is missing"),
    ("method missing, name sent", TOOL, [(N, "search")], "Mcp-Method is missing"),
    ("method in another case", LIST, [(M, "TOOLS/LIST")], "Mcp-Method 'TOOLS/LIST'"),
    ("method empty", LIST, [(M, "")], "Mcp-Method ''"),
    ("tool name mismatch", TOOL, [(M, "tools/call"), (N, "wrong_tool_name")], "Mcp-Name"),
    ("tool name missing", TOOL, [(M, "tools/call")], "Mcp-Name is missing"),
    ("prompt name missing", PROMPT, [(M, "prompts/get")], "Mcp-Name is missing"),
    ("resource uri missing", READ, [(M, "resources/read")], "Mcp-Name is missing"),
    ("resource uri mismatch", READ, [(M, "resources/read"), (N, "toolhost://kb/secret")],
     "params.uri"),
    ("name in another case", TOOL, [(M, "tools/call"), (N, "SEARCH")], "Mcp-Name"),
    ("a name the body does not have", call("tools/call", {"arguments": {}}),
     [(M, "tools/call"), (N, "search")], "Mcp-Name"),
    ("base64 of another name", TOOL, [(M, "tools/call"), (N, b64("delete_all"))], "Mcp-Name"),
    ("bad base64", TOOL, [(M, "tools/call"), (N, "=?base64?SGVs!!!bG8=?=")], "Mcp-Name"),
    ("unpadded base64", UNICODE, [(M, "tools/call"), (N, "=?base64?SGVsbG8?=")], "Mcp-Name"),
    ("unicode name, ASCII header", UNICODE, [(M, "tools/call"), (N, "cafe")], "Mcp-Name"),
    ("CR LF name, header without it", CRLF, [(M, "prompts/get"), (N, "twolines")], "Mcp-Name"),
    ("name sent twice", TOOL, [(M, "tools/call"), (N, "search"), (N, "delete_all")],
     "Mcp-Name appears 2 times"),
    ("method sent twice", LIST, [(M, "tools/list"), (M, "tools/list")],
     "Mcp-Method appears 2 times"),
    ("1 MB name that disagrees", TOOL, [(M, "tools/call"), (N, BIG)], "Mcp-Name 'nnn"),
    ("version header mismatch", LIST, [(M, "tools/list"), ("mcp-protocol-version",
                                                           "2025-11-25")],
     "MCP-Protocol-Version"),
    ("2025 request, method mismatch", call("tools/list", modern=False), [(M, "prompts/list")],
     "Mcp-Method"),
    ("2025 request, name mismatch", call("tools/call", {"name": "search"}, modern=False),
     [(M, "tools/call"), (N, "delete_all")], "Mcp-Name"),
    ("notification, method mismatch", call("notifications/cancelled", request=False),
     [(M, "tools/call")], "Mcp-Method"),
]


@pytest.mark.parametrize(("body", "headers"), [c[1:] for c in AGREE], ids=[c[0] for c in AGREE])
def test_headers_that_agree_with_the_body_are_served(
        body: dict[str, Any], headers: list[tuple[str, str | bytes]]) -> None:
    status, answer, seen = post(body, headers)
    if "method" not in body:  # an answer: past the headers, refused as nothing waits for it
        assert status == 409 and "only within a session" in answer["error"]["message"]
        return
    assert status == (200 if "id" in body else 202), answer
    assert answer is None or answer == {"jsonrpc": "2.0", "id": 7, "result": {}}
    if "method" in body:
        assert [m["method"] for m in seen] == [body["method"]]


@pytest.mark.parametrize(("body", "headers", "said"), [c[1:] for c in DISAGREE],
                         ids=[c[0] for c in DISAGREE])
def test_headers_that_disagree_are_400_header_mismatch(
        body: dict[str, Any], headers: list[tuple[str, str | bytes]], said: str) -> None:
    status, answer, seen = post(body, headers)
    assert status == 400
    assert answer["error"]["code"] == -32020
    assert answer["id"] == body.get("id")
    assert said in answer["error"]["message"]
    assert len(answer["error"]["message"]) < 500  # one line, however big the header
    assert seen == []  # the core never ran it


def test_a_batch_is_refused_whatever_its_headers() -> None:
    status, answer, seen = post([LIST, LIST], [(M, "tools/list")])
    assert status == 400 and answer["error"]["code"] == -32600
    assert seen == []
