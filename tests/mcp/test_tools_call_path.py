"""The tools/call path of the MCP core (``toolhost.mcp.tools_call``): the quick dispatch of
the common request shape answers exactly as the general path does, and a call's context,
built without the dataclass's ``__init__`` and with its ``ctx.log`` made at first read, is
the context a tool saw before: the same fields, the same defaults, the same log lines at the
same moments."""

from __future__ import annotations

import dataclasses
import functools
import logging
import threading
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.to_thread
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.client_log import ClientLog
from toolhost.mcp.tools_call import McpCallContext
from toolhost.results import ToolResult

from .mcp_testtools import MODERN_META, make_tool

ABSENT = object()
MODERN = MODERN_META


def _server() -> McpServer:
    return McpServer("demo", "1.0", [make_tool()])


class _Odd(dict):  # type: ignore[type-arg]
    """A dict subclass: never the quick path's exact type."""


def _message(method: Any, request_id: Any, version: Any, params: Any, meta: Any
             ) -> dict[str, Any]:
    message: dict[str, Any] = {}
    for key, value in (("jsonrpc", version), ("id", request_id), ("method", method)):
        if value is not ABSENT:
            message[key] = value
    if params is not ABSENT:
        if isinstance(params, dict) and meta is not ABSENT:
            params = {**params, "_meta": meta}
        message["params"] = params
    return message


methods = st.sampled_from(["tools/call", "ping", "tools/list", "initialize", "nope",
                           "notifications/cancelled", 1, None, ABSENT])
ids = st.sampled_from([1, 0, -3, 2**70, "a", "", 1.5, True, None, [1], {"a": 1},
                       float("nan"), ABSENT])
versions = st.sampled_from(["2.0", "1.0", 2.0, None, ABSENT])
params = st.sampled_from([
    ABSENT, None, {}, [], "x", _Odd(name="greet", arguments={"name": "x"}),
    {"name": "greet", "arguments": {"name": "Ada"}}, {"name": "greet"},
    {"name": "greet", "arguments": {"name": 3}}, {"name": "greet", "arguments": []},
    {"name": "nope", "arguments": {}}, {"name": 5}, {"protocolVersion": "2025-11-25"},
    {"cursor": "bad"}])
metas = st.sampled_from([
    ABSENT, None, {}, "x", [], {"progressToken": 7}, {"progressToken": True},
    {"claudecode/toolUseId": "toolu_1"}, MODERN, {**MODERN, "progressToken": "t"},
    {rpc.PROTOCOL_VERSION_META_KEY: "1999-01-01"}, _Odd(progressToken=1)])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(methods, ids, versions, params, metas)
def test_property_the_quick_path_answers_as_the_general_path(
        method: Any, request_id: Any, version: Any, param: Any, meta: Any) -> None:
    message = _message(method, request_id, version, param, meta)

    async def both() -> tuple[Any, Any, list[Any], list[Any]]:
        quick_notes: list[Any] = []
        general_notes: list[Any] = []

        async def quick_notify(note: dict[str, Any]) -> None:
            quick_notes.append(note)

        async def general_notify(note: dict[str, Any]) -> None:
            general_notes.append(note)

        quick = await _server().handle(message, notify=quick_notify, peer="p")
        general = await _server()._dispatch(message, general_notify, "p", None)
        return quick, general, quick_notes, general_notes

    quick, general, quick_notes, general_notes = anyio.run(both)
    assert quick == general
    assert quick_notes == general_notes


def _capturing(seen: list[CallContext], **extra: Any) -> Any:
    async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        seen.append(ctx)
        return ToolResult.text("ok")
    return make_tool(invoke=invoke, **extra)


def _call(meta: Any = ABSENT, request_id: Any = 7) -> dict[str, Any]:
    params: dict[str, Any] = {"name": "greet", "arguments": {"name": "Ada"}}
    if meta is not ABSENT:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


DEFAULTS = CallContext()


@pytest.mark.anyio
@pytest.mark.parametrize(("meta", "with_notify", "tool_use_id", "progress"), [
    (ABSENT, False, "", False),
    (ABSENT, True, "", False),
    ({"progressToken": 3, "claudecode/toolUseId": "toolu_9"}, True, "toolu_9", True),
    ({"progressToken": "t"}, False, "", False),  # no one to send progress to
    ({"progressToken": None, "claudecode/toolUseId": 5}, True, "", False),
    ({"progressToken": 1.5}, True, "", True),  # ProgressToken: string | number
    ({**MODERN, "progressToken": 4}, True, "", True),
])
async def test_the_context_has_the_fields_and_defaults_init_would_give(
        meta: Any, with_notify: bool, tool_use_id: str, progress: bool) -> None:
    seen: list[CallContext] = []
    srv = McpServer("demo", "1.0", [_capturing(seen)])

    async def notify(note: dict[str, Any]) -> None:
        pass

    answer = await srv.handle(_call(meta), notify=notify if with_notify else None, peer="p")
    assert answer is not None and "result" in answer, answer
    (ctx,) = seen
    assert isinstance(ctx, McpCallContext)
    assert ctx.call_id == "7" and ctx.tool == "mcp__demo__greet"
    assert ctx.tool_use_id == tool_use_id
    # a default that is a function is the function itself, never a method of the context
    assert (ctx.progress is not DEFAULTS.progress) is progress
    modern = isinstance(meta, dict) and rpc.PROTOCOL_VERSION_META_KEY in meta
    for name in ("elicit", "sample"):  # a round trip in the stateless era; else no channel
        asker = getattr(ctx, name)
        assert isinstance(asker, functools.partial) if modern \
            else asker is getattr(DEFAULTS, name)
    log = ctx.log
    assert log is ctx.log  # made once
    if with_notify and not modern:
        assert isinstance(log, ClientLog)
    else:  # no client to hear it, or a 2026-07-28 request that did not ask for log lines
        # toolhost's call log, the default a CallContext has (callable with an MCP level)
        assert log is DEFAULTS.log and log.logger is logging.getLogger("toolhost.call")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.tool = "x"  # type: ignore[misc]
    copy = dataclasses.replace(ctx, tool="mcp__demo__other")
    assert copy.tool == "mcp__demo__other" and copy.log is log and copy.call_id == "7"
    assert dataclasses.replace(ctx) == ctx


@pytest.mark.anyio
async def test_a_log_first_read_in_a_worker_thread_is_sent_at_once() -> None:
    # Made in the sync tool's thread, the log still knows the event loop's thread: a line
    # written in the worker reaches the client before the tool returns, as before.
    notes: list[dict[str, Any]] = []
    heard_before_return: list[int] = []

    async def notify(note: dict[str, Any]) -> None:
        notes.append(note)

    async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        def work() -> None:
            assert threading.current_thread() is not threading.main_thread()
            ctx.log.info("from the worker")
            heard_before_return.append(len(notes))
        await anyio.to_thread.run_sync(work)
        ctx.log.info("from the loop")  # the same log: queued until the result
        heard_before_return.append(len(notes))
        return ToolResult.text("done")

    srv = McpServer("demo", "1.0", [make_tool(invoke=invoke)])
    answer = await srv.handle(_call({"progressToken": 1}), notify=notify, peer="p")
    assert answer is not None and answer["result"]["content"][0]["text"] == "done"
    assert heard_before_return == [1, 1]
    assert [n["params"]["data"] for n in notes] == ["from the worker", "from the loop"]


@pytest.mark.anyio
async def test_a_log_never_read_sends_nothing_and_a_level_set_still_holds() -> None:
    notes: list[dict[str, Any]] = []

    async def notify(note: dict[str, Any]) -> None:
        notes.append(note)

    async def quiet(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        return ToolResult.text("ok")

    async def chatty(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        ctx.log.info("an info line")
        ctx.log.warning("a warning")
        return ToolResult.text("ok")

    srv = McpServer("demo", "1.0", [make_tool(invoke=quiet),
                                    make_tool("chatty", invoke=chatty)])
    await srv.handle(_call(), notify=notify, peer="p")
    assert notes == []
    await srv.handle({"jsonrpc": "2.0", "id": 1, "method": "logging/setLevel",
                      "params": {"level": "warning"}}, peer="p")
    message = _call()
    message["params"]["name"] = "chatty"
    await srv.handle(message, notify=notify, peer="p")
    assert [n["params"]["data"] for n in notes] == ["a warning"]


@pytest.mark.parametrize("readers", [2, 8])
def test_threads_reading_the_log_first_at_once_get_the_same_one(readers: int) -> None:
    async def notify(note: dict[str, Any]) -> None:
        pass

    for _ in range(50):
        ctx = McpCallContext.made({"call_id": "1", "tool": "mcp__demo__greet",
                                   "_log_to_client": (notify, "info", "greet",
                                                      threading.get_ident())})
        start = threading.Barrier(readers)
        got: list[Any] = []

        def read(ctx: McpCallContext = ctx, start: threading.Barrier = start,
                 got: list[Any] = got) -> None:
            start.wait()
            got.append(ctx.log)

        threads = [threading.Thread(target=read) for _ in range(readers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(got) == readers and all(log is got[0] for log in got)
        assert isinstance(got[0], ClientLog) and ctx.log_made() is got[0]
