"""The MCP core under hostile requests: ids of every JSON type, huge values quoted back,
oversized arguments, failing handlers. Always an answer (or nothing for a notification),
never an exception, never an echo longer than an excerpt."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.limits import Limits
from toolhost.mcp import McpServer
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.wire import encode

from .mcp_testtools import make_tool

pytestmark = pytest.mark.anyio

HUGE = "x" * 5_000_000


def server(**kw: Any) -> McpServer:
    return McpServer("demo", "1.0", [make_tool()], **kw)


async def handle(srv: McpServer, message: Any, **kw: Any) -> dict[str, Any] | None:
    answer = await srv.handle(message, **kw)
    if answer is not None:
        encode(answer)  # every answer must be valid JSON as it stands
    return answer


@pytest.mark.parametrize("bad_id", [{"a": 1}, [1, 2], True, False, None, float("inf")])
async def test_a_non_string_non_number_id_is_an_invalid_request_answered_with_id_null(
        bad_id: Any) -> None:
    answer = await handle(server(), {"jsonrpc": "2.0", "id": bad_id, "method": "ping"})
    assert answer is not None
    assert answer["id"] is None and answer["error"]["code"] == rpc.INVALID_REQUEST


@pytest.mark.parametrize("good_id", ["", "r-1", 0, -7, 2**70, 1.5])
async def test_string_and_number_ids_are_answered_under_their_own_id(good_id: Any) -> None:
    answer = await handle(server(), {"jsonrpc": "2.0", "id": good_id, "method": "ping"},
                          peer="p")
    assert answer == {"jsonrpc": "2.0", "id": good_id, "result": {}}


async def test_cancelled_naming_an_unhashable_request_is_ignored() -> None:
    srv = server()
    for target in ({"a": 1}, [1], None):
        assert await handle(srv, {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                  "params": {"requestId": target}}, peer="p") is None


async def test_huge_values_are_never_echoed_in_full() -> None:
    srv = server()
    for message in (
        {"jsonrpc": "2.0", "id": 1, "method": HUGE},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": HUGE}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"cursor": HUGE}},
        {"jsonrpc": "2.0", "id": 1, "method": "ping", "params": {
            "_meta": {rpc.PROTOCOL_VERSION_META_KEY: {"v": HUGE}}}},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "greet", "arguments": {"name": [HUGE]}}},
    ):
        answer = await handle(srv, message)
        assert answer is not None
        text = json.dumps(answer)
        assert len(text) < 2000, text[:300]
        assert "more characters" in text, text[:300]


async def test_a_validation_error_quoting_a_huge_argument_is_cut() -> None:
    answer = await handle(server(), {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                     "params": {"name": "greet", "arguments": {"name": 5,
                                                                              "x": HUGE}}})
    assert answer is not None
    result = answer["result"]
    assert result["isError"] is True
    assert len(result["content"][0]["text"]) < 1500


async def test_many_validation_errors_are_bounded() -> None:
    schema = {"type": "object", "properties": {"v": {"type": "array",
                                                     "items": {"type": "integer"}}}}
    srv = McpServer("demo", "1.0", [make_tool("ints", schema=schema)])
    answer = await handle(srv, {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                                "params": {"name": "ints", "arguments": {"v": ["a"] * 50_000}}})
    assert answer is not None  # (under the 100,000 values checked at all: compile/tool.py)
    text = answer["result"]["content"][0]["text"]
    assert text.count("is not of type") == 20 and "(more errors not shown)" in text


async def test_arguments_over_the_limit_are_invalid_params() -> None:
    srv = server(limits=Limits(max_argument_bytes=1000))
    answer = await handle(srv, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                "params": {"name": "greet", "arguments": {"name": "y" * 2000}}})
    assert answer is not None and answer["error"]["code"] == rpc.INVALID_PARAMS
    assert "the limit is 1,000" in answer["error"]["message"]
    nested = {"name": "ok", "deep": [["z" * 600], ["z" * 600]]}
    answer = await handle(srv, {"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                                "params": {"name": "greet", "arguments": nested}})
    assert answer is not None and answer["error"]["code"] == rpc.INVALID_PARAMS
    small = await handle(srv, {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                               "params": {"name": "greet", "arguments": {"name": "Al"}}})
    assert small is not None and small["result"]["content"][0]["text"] == "Hello, Al!"


async def test_a_failing_handler_is_an_internal_error_without_its_text(
        caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLHOST_DEBUG", raising=False)
    srv = server()

    async def broken(*args: Any) -> dict[str, Any]:
        raise RuntimeError("secret detail " + "z" * 10_000)

    srv._handlers["ping"] = broken
    answer = await handle(srv, {"jsonrpc": "2.0", "id": 9, "method": "ping"})
    assert answer is not None and answer["error"]["code"] == rpc.INTERNAL_ERROR
    assert "secret" not in answer["error"]["message"]
    records = [r for r in caplog.records if "RuntimeError" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is None  # one line, no traceback
    assert len(records[0].getMessage()) < 600


async def test_a_huge_cursor_number_is_a_bad_cursor() -> None:
    import base64
    cursor = base64.urlsafe_b64encode(b"offset:" + b"9" * 5000).decode()
    answer = await handle(server(), {"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                                     "params": {"cursor": cursor}})
    assert answer is not None and answer["error"]["code"] == rpc.INVALID_PARAMS


json_leaf = (st.none() | st.booleans() | st.integers() | st.text(max_size=20)
             | st.floats(allow_nan=False, allow_infinity=False))
json_any = st.recursive(json_leaf, lambda inner: st.lists(inner, max_size=4)
                        | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                        max_leaves=20)
methods = st.sampled_from(["initialize", "ping", "tools/list", "tools/call", "server/discover",
                           "notifications/cancelled", "notifications/initialized", "nope",
                           "resources/list", "resources/read", "resources/templates/list",
                           "prompts/list", "prompts/get", "completion/complete",
                           "logging/setLevel"])
fields = st.fixed_dictionaries({}, optional={
    "jsonrpc": st.sampled_from(["2.0", "1.0"]) | json_any,
    "id": json_any,
    "method": methods | json_any,
    "params": json_any | st.fixed_dictionaries({}, optional={
        "name": st.sampled_from(["greet", "nope"]) | json_any,
        "arguments": json_any | st.fixed_dictionaries({}, optional={"name": json_any}),
        "cursor": json_any, "protocolVersion": json_any, "requestId": json_any,
        "uri": json_any, "level": json_any, "ref": json_any, "argument": json_any,
        "_meta": json_any | st.fixed_dictionaries({}, optional={
            rpc.PROTOCOL_VERSION_META_KEY: st.sampled_from(["2026-07-28"]) | json_any,
            "progressToken": json_any})}),
    "result": json_any, "error": json_any})


@settings(max_examples=150)
@given(fields)
def test_property_every_message_gets_a_wellformed_answer_or_none(message: dict[str, Any]
                                                                 ) -> None:
    srv = server()

    async def run() -> None:
        notes: list[dict[str, Any]] = []

        async def notify(note: dict[str, Any]) -> None:
            notes.append(note)

        with anyio.fail_after(5):
            answer = await handle(srv, message, notify=notify, peer="p")
        if answer is None:
            return
        assert answer["jsonrpc"] == "2.0"
        assert ("result" in answer) != ("error" in answer)
        assert answer["id"] is None or rpc.is_valid_id(answer["id"])
        if "error" in answer:
            assert isinstance(answer["error"]["code"], int)
            assert len(answer["error"]["message"]) < 1000
        honest = await srv.handle({"jsonrpc": "2.0", "id": "h", "method": "tools/call",
                                   "params": {"name": "greet", "arguments": {"name": "A"}}})
        assert honest is not None and honest["result"]["content"][0]["text"] == "Hello, A!"

    anyio.run(run)


