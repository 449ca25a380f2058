"""One malformed entry of an upstream's listing is left out (a warning names it), not the
whole listing refused (toolhost.gateway.sift): a tool whose inputSchema lacks
``"type": "object"`` kept every other tool of its upstream from being imported."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from toolhost.gateway.sift import SAID, sift

from .test_many_values import connected

BAD = [
    {"name": "selfref", "inputSchema": {"$ref": "#"}},  # no "type": "object"
    {"name": "noschema"},
    {"name": "nullschema", "inputSchema": None},
    {"name": "arrschema", "inputSchema": {"type": "array"}},
    {"inputSchema": {"type": "object"}},  # no name
]
GOOD = [{"name": "good", "inputSchema": {"type": "object", "properties": {"a": {}}}}]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_malformed_tools_are_left_out_and_the_rest_imported(
        kind: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolhost.gateway"), \
            connected(kind, HOSTILE_PRE=json.dumps(BAD[:2]),
                      HOSTILE_TOOLS=json.dumps(BAD[2:] + GOOD)) as connection:
        listed = connection.list_tools()
        assert [t["name"] for t in listed] == ["echo", "good"]
        said = connection.call_tool("good", {"a": 1}, 20.0)  # and it is served
        assert not said.get("isError"), said
    warned = [r.getMessage() for r in caplog.records if "malformed" in r.getMessage()]
    assert len(warned) == len(BAD), warned
    assert "upstream server 'h' listed the tool 'selfref' malformed (inputSchema.type: " \
        "Field required): it is left out" in warned
    assert any("the tool at index 5 of the page malformed (name:" in w for w in warned), warned
    assert all("\n" not in w for w in warned)


def _page(key: str, entries: list[Any]) -> Any:
    """What the transport reads: a SessionMessage of a JSON-RPC answer."""
    import mcp_types
    from mcp.shared.message import SessionMessage

    return SessionMessage(mcp_types.JSONRPCResponse(jsonrpc="2.0", id=1,
                                                    result={key: entries}))


@pytest.mark.parametrize("key,good,bad", [
    ("resources", {"uri": "notes://a", "name": "a"}, {"name": "no uri"}),
    ("resourceTemplates", {"uriTemplate": "notes://{x}", "name": "t"}, {"name": "no template"}),
    ("prompts", {"name": "p"}, {"description": "no name"}),
])
def test_other_listings_are_sifted_too(key: str, good: dict[str, Any],
                                       bad: dict[str, Any]) -> None:
    item = sift(_page(key, [bad, good]), "h")
    assert item.message.result[key] == [good]


def test_many_malformed_entries_are_counted_not_each_said(
        caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolhost.gateway"):
        item = sift(_page("tools", [{"name": f"t{k}"} for k in range(50)] + GOOD), "h")
    assert item.message.result["tools"] == GOOD
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == SAID + 1
    assert said[-1] == f"upstream server 'h' listed {50 - SAID} more malformed tools on one " \
        "page: left out"


def test_an_answer_is_not_a_listing() -> None:
    answer = {"content": [{"type": "text", "text": "x"}], "tools": [{"name": "x"}]}
    page = _page("tools", [{"name": "x"}])
    page.message.result["content"] = answer["content"]
    assert sift(page, "h").message.result == answer  # left as it is


def test_a_page_is_judged_in_the_era_the_handshake_named() -> None:
    era: dict[str, str] = {}
    hello = _page("tools", [])
    hello.message.result.clear()
    hello.message.result.update({"protocolVersion": "2025-06-18", "capabilities": {},
                                 "serverInfo": {"name": "u", "version": "1"}})
    sift(hello, "h", era)
    assert era == {"version": "2025-06-18"}
    item = sift(_page("tools", [{"name": "bad"}, *GOOD]), "h", era)
    assert item.message.result["tools"] == GOOD


def test_a_page_refused_whole_is_said_in_one_line() -> None:
    from toolhost.gateway.client import UpstreamError

    with connected("stdio", HOSTILE_MODE="bad_cursor") as connection, \
            pytest.raises(UpstreamError) as raised:
        connection.list_tools()
    said = str(raised.value)
    assert said == ("upstream server 'h' could not list its tools: an invalid answer "
                    "(nextCursor: Input should be a valid string)"), said
