"""What a 2026-07-28 request meets over HTTP that a 2025 one does not: the methods that
revision removed are HTTP 404 with -32601 (never run), and custom ``Mcp-Param-*`` headers
(SEP-2243, a tool's ``x-mcp-header`` properties) must agree with the call's arguments (HTTP
400, -32020), so a gateway routing on them cannot be told one value while the tool runs
another. In process: the real ASGI app and the real core with real tools."""

from __future__ import annotations

import base64
import json
from typing import Any

import anyio
import httpx

from toolhost.mcp import McpServer
from toolhost.serve.http import HttpServer
from toolhost.serve.served import ServedServer

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {}}


def exchange(core: Any, posts: list[tuple[dict[str, Any], Any]]) -> list[tuple[int, Any]]:
    """POST each (body, headers: a dict, or a list of pairs to repeat one) to one server: the
    status and the decoded answer of each."""
    app = HttpServer(core).app

    async def run() -> list[tuple[int, Any]]:
        out = []
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            for body, headers in posts:
                pairs = list(headers.items() if isinstance(headers, dict) else headers)
                answer = await client.post("/mcp", content=json.dumps(body).encode(), headers=[
                    ("content-type", "application/json"),
                    ("accept", "application/json, text/event-stream"), *pairs])
                out.append((answer.status_code, answer.json() if answer.content else None))
        return out

    return anyio.run(run)


REMOVED = ["initialize", "ping", "logging/setLevel", "resources/subscribe",
           "resources/unsubscribe"]


def test_removed_methods_are_404_method_not_found_in_the_stateless_revision() -> None:
    posts = [({"jsonrpc": "2.0", "id": i, "method": method,
               "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "level": "info",
                          "uri": "x://y", "_meta": MODERN}},
              {"mcp-method": method, "mcp-protocol-version": "2026-07-28"})
             for i, method in enumerate(REMOVED)]
    for i, (status, answer) in enumerate(exchange(McpServer("s", "1", []), posts)):
        assert status == 404, REMOVED[i]
        assert answer["id"] == i and answer["error"]["code"] == -32601, answer
    # a 2025 client still initializes and pings (a session, 200)
    legacy = exchange(McpServer("s", "1", []), [
        ({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                     "clientInfo": {"name": "c", "version": "1"}}}, {}),
        ({"jsonrpc": "2.0", "id": 2, "method": "ping"}, {})])
    assert [status for status, _ in legacy] == [200, 200]
    assert legacy[0][1]["result"]["protocolVersion"] == "2025-11-25"


# -- Mcp-Param-* (SEP-2243) --------------------------------------------------------------

ROUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "count": {"type": "integer", "x-mcp-header": "Count"},
        "dry": {"type": "boolean", "x-mcp-header": "Dry"},
        "where": {"type": "object", "properties": {
            "zone": {"type": "string", "x-mcp-header": "Zone"}}},
        "note": {"type": "string"}},
    "additionalProperties": False}


async def _echo(arguments: Any, ctx: Any) -> Any:
    from toolhost.results import ToolResult
    return ToolResult.text(json.dumps(arguments, sort_keys=True))


def _served() -> Any:
    from tests.mcp.mcp_testtools import make_tool
    from toolhost.serve.served import ServedServer
    return ServedServer(McpServer("s", "1", [make_tool("route", _echo, schema=ROUTE_SCHEMA)]),
                        {})


def b64(text: str) -> str:
    return "=?base64?" + base64.b64encode(text.encode()).decode() + "?="


def route_call(arguments: dict[str, Any], headers: dict[str, str], *, modern: bool = True
               ) -> tuple[dict[str, Any], dict[str, str]]:
    params: dict[str, Any] = {"name": "route", "arguments": arguments}
    sent = {"mcp-method": "tools/call", "mcp-name": "route", **headers}
    if modern:
        params["_meta"] = MODERN
    else:
        sent = headers
    return {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}, sent


# (case, arguments, headers, modern): each is served (200, the tool ran)
AGREE = [
    ("all four", {"region": "eu-west1", "count": 42, "dry": True, "where": {"zone": "b"}},
     {"Mcp-Param-Region": "eu-west1", "Mcp-Param-Count": "42", "Mcp-Param-Dry": "true",
      "Mcp-Param-Zone": "b"}, True),
    ("none annotated sent", {"note": "x"}, {}, True),
    ("name case-insensitive", {"region": "eu"}, {"mcp-param-region": "eu"}, True),
    ("whitespace around", {"region": "eu"}, {"Mcp-Param-Region": "  eu\t"}, True),
    ("base64 of unicode", {"region": "Zürich 東"}, {"Mcp-Param-Region": b64("Zürich 東")}, True),
    ("base64 of plain", {"region": "Hello"}, {"Mcp-Param-Region": b64("Hello")}, True),
    ("no wrapper is literal", {"region": "SGVsbG8="}, {"Mcp-Param-Region": "SGVsbG8="}, True),
    ("half a wrapper is literal", {"region": "=?base64?SGVsbG8="},
     {"Mcp-Param-Region": "=?base64?SGVsbG8="}, True),
    ("integer as float", {"count": 42}, {"Mcp-Param-Count": "42.0"}, True),
    ("float body integral", {"count": 7.0}, {"Mcp-Param-Count": "7"}, True),
    ("false", {"dry": False}, {"Mcp-Param-Dry": "false"}, True),
    ("an unknown Mcp-Param is ignored", {"region": "eu"},
     {"Mcp-Param-Region": "eu", "Mcp-Param-Other": "x"}, True),
    ("2025 sends none", {"region": "eu", "count": 1}, {}, False),
    ("2025 sends agreeing", {"region": "eu"}, {"Mcp-Param-Region": "eu"}, False),
]

# (case, arguments, headers, modern, words the message has): each is 400 / -32020, not run
DISAGREE = [
    ("value differs", {"region": "us"}, {"Mcp-Param-Region": "eu"}, True, "does not match"),
    ("case differs", {"region": "EU"}, {"Mcp-Param-Region": "eu"}, True, "does not match"),
    ("missing", {"region": "us"}, {}, True, "is missing"),
    ("missing nested", {"where": {"zone": "a"}}, {}, True, "Zone is missing"),
    ("missing integer", {"count": 0}, {}, True, "Count is missing"),
    ("missing false", {"dry": False}, {}, True, "Dry is missing"),
    ("sent, body absent", {}, {"Mcp-Param-Region": "eu"}, True, "absent"),
    ("sent, body null", {"region": None}, {"Mcp-Param-Region": "eu"}, True, "absent"),
    ("bad padding", {"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVsbG8?="}, True,
     "base64"),
    ("bad characters", {"region": "Hello"}, {"Mcp-Param-Region": "=?base64?SGVs!!!bG8=?="},
     True, "base64"),
    ("not canonical", {"region": "Hi"}, {"Mcp-Param-Region": "=?base64?SGk=?="[:-3] + "j?="},
     True, "base64"),
    ("integer differs", {"count": 42}, {"Mcp-Param-Count": "43"}, True, "does not match"),
    ("integer fraction", {"count": 42}, {"Mcp-Param-Count": "42.5"}, True, "does not match"),
    ("integer not a number", {"count": 42}, {"Mcp-Param-Count": "forty"}, True,
     "does not match"),
    ("boolean spelled", {"dry": True}, {"Mcp-Param-Dry": "True"}, True, "does not match"),
    ("object where a value goes", {"region": {"a": 1}}, {"Mcp-Param-Region": "x"}, True,
     "not a string"),
    ("2025 disagreeing", {"region": "us"}, {"Mcp-Param-Region": "eu"}, False,
     "does not match"),
]


def test_mcp_param_headers_agree_with_the_arguments_or_the_call_is_refused() -> None:
    posts = [route_call(args, headers, modern=modern) for _, args, headers, modern in AGREE]
    posts += [route_call(args, headers, modern=modern)
              for _, args, headers, modern, _ in DISAGREE]
    twice, sent = route_call({"region": "eu"}, {})
    posts.append((twice, [*sent.items(), ("Mcp-Param-Region", "eu"),
                          ("mcp-param-region", "us")]))
    answers = exchange(_served(), posts)
    for (case, args, *_), (status, answer) in zip(AGREE, answers, strict=False):
        assert status == 200 and "result" in answer, (case, answer)
        text = answer["result"]["content"][0]["text"]
        assert json.loads(text) == args, (case, text)
    repeated = ("twice", None, None, None, "appears 2 times")
    for (case, _, _, _, words), (status, answer) in zip([*DISAGREE, repeated],
                                                       answers[len(AGREE):], strict=True):
        assert status == 400, (case, answer)
        assert answer["id"] == 9 and answer["error"]["code"] == -32020, (case, answer)
        assert words in answer["error"]["message"], (case, answer["error"]["message"])


def test_a_modern_request_without_client_capabilities_is_400_invalid_params() -> None:
    # server-stateless's request-meta-invalid-* probes: no _meta, no version, no capabilities
    # (and capabilities that are not an object); each 400 / -32602 under its own id
    version = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    metas: list[Any] = [None, {"io.modelcontextprotocol/clientCapabilities": {}}, version,
                        {**version, "io.modelcontextprotocol/clientCapabilities": None},
                        {**version, "io.modelcontextprotocol/clientCapabilities": ["sampling"]}]
    posts = []
    for method in ("server/discover", "tools/list", "subscriptions/listen"):
        for meta in metas:
            params = {} if meta is None else {"_meta": meta}
            posts.append(({"jsonrpc": "2.0", "id": len(posts) + 100, "method": method,
                           "params": params},
                          {"mcp-method": method, "mcp-protocol-version": "2026-07-28"}))
    served = ServedServer(McpServer("s", "1", []), {})  # as serve runs it: listen its own
    for i, (status, answer) in enumerate(exchange(served, posts)):
        assert status == 400, posts[i]
        assert answer["id"] == i + 100 and answer["error"]["code"] == -32602, answer
    # with them (no clientInfo: a SHOULD), served
    ok = exchange(McpServer("s", "1", []), [(
        {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": MODERN}},
        {"mcp-method": "server/discover", "mcp-protocol-version": "2026-07-28"})])
    assert ok[0][0] == 200 and ok[0][1]["result"]["supportedVersions"] == ["2026-07-28"]


async def _samples(arguments: Any, ctx: Any) -> Any:
    from toolhost.results import ToolResult

    return ToolResult.text((await ctx.sample("hi", max_tokens=5)).text)


def test_a_call_needing_an_undeclared_capability_is_400_missing_capability() -> None:
    from tests.mcp.mcp_testtools import make_tool

    served = ServedServer(McpServer("s", "1", [make_tool("ask", _samples, schema={})]), {})
    [(status, answer)] = exchange(served, [(
        {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
         "params": {"name": "ask", "arguments": {}, "_meta": MODERN}},
        {"mcp-method": "tools/call", "mcp-name": "ask", "mcp-protocol-version": "2026-07-28"})])
    assert status == 400 and answer["id"] == 5, answer
    assert answer["error"]["code"] == -32021
    assert answer["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
