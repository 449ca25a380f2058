"""Progress tokens name one active request each (the spec: a client's tokens "MUST be unique
across all active requests"; progress "MUST only reference tokens ... provided in an active
request"). A second request under a token a request of the same peer has in flight is refused
(-32602) before it runs: served, both requests' notifications went out under one token, each
counting up from its own start, and the client could not tell them apart. The token is free
again once its request is answered, however it ends. And a request's ``ctx.progress`` sends
nothing once the request is answered (a task the tool left running reported into whatever
request the client gave that token to next)."""

from __future__ import annotations

import functools
import itertools
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.modern import modern_meta
from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.results import ToolResult

from .mcp_testtools import content_server, make_tool

pytestmark = pytest.mark.anyio

MODULE = '''\
import anyio
from toolhost.backends.base import CallContext

async def slow(x: str, *, ctx: CallContext) -> str:
    await ctx.progress(1)
    await anyio.sleep(60)
    return "late"

async def slow_values(value: str, *, ctx: CallContext) -> list:
    return [await slow(value, ctx=ctx)]

def fetch(x: str) -> str:
    return x

def values(value: str) -> list:
    return [value]
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      slow: {uri: "slow://{x}", python: "tokenmod:slow"}
      done: {uri: "done://{x}", python: "tokenmod:fetch", complete: {x: "tokenmod:slow_values"}}
      fast: {uri: "fast://{x}", python: "tokenmod:fetch", complete: {x: "tokenmod:values"}}
    prompts:
      wait: {python: "tokenmod:slow"}
      quick: {template: "hello"}
"""
METHODS = ["tools/call", "resources/read", "prompts/get", "completion/complete"]
KEPT: list[Any] = []  # ctx.progress of the last ``keep`` call


async def hold(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    await ctx.progress(1)
    await anyio.sleep(60)
    return ToolResult.text("late")


async def keep(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    KEPT[:] = [ctx.progress]
    await ctx.progress(1)
    return ToolResult.text("kept")


async def fails(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    raise RuntimeError("boom")


def build(root: Path, module: str) -> McpServer:
    """A server with a slow and a quick form of each method (``module``: the name of its
    python module, one per test file: one process imports a name once)."""
    core = content_server(root, CONFIG.replace("tokenmod", module), {module: MODULE})
    core.set_tools([make_tool("hold", hold, schema={}), make_tool("keep", keep, schema={}),
                    make_tool("fails", fails, schema={})])
    return core


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return build(tmp_path_factory.mktemp("tokens"), "tokenmod")


def request(request_id: int, method: str, token: Any, *, slow: bool = True,
            meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any]
    if method == "tools/call":
        params = {"name": "hold" if slow else "keep"}
    elif method == "resources/read":
        params = {"uri": "slow://x" if slow else "done://x"}
    elif method == "prompts/get":
        params = {"name": "wait", "arguments": {"x": "x"}} if slow else {"name": "quick"}
    else:
        params = {"ref": {"type": "ref/resource", "uri": "done://{x}" if slow else "fast://{x}"},
                  "argument": {"name": "x", "value": "x"}}
    params["_meta"] = {**(meta or {}), "progressToken": token}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


async def quiet(message: dict[str, Any]) -> None:
    pass


@pytest.mark.parametrize(("first", "second"), list(itertools.product(METHODS, METHODS)))
@pytest.mark.parametrize("peer", ["session-a", None])  # None: stdio's one connection
async def test_a_token_in_flight_is_refused_to_a_second_request_until_the_first_ends(
        server: McpServer, first: str, second: str, peer: Any) -> None:
    heard: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        heard.append(message)

    async with anyio.create_task_group() as tg:
        tg.start_soon(functools.partial(server.handle, request(1, first, "T"), notify=notify,
                                        peer=peer))
        await anyio.wait_all_tasks_blocked()
        with anyio.fail_after(10):  # served, it would run for a minute
            refused = await server.handle(request(2, second, "T"), notify=notify, peer=peer)
        assert refused is not None and refused["id"] == 2
        assert refused["error"]["code"] == -32602
        assert "progressToken 'T' is already the token of a request in flight" in \
            refused["error"]["message"]
        # another token of the same peer, the same token of another peer: served
        for other, other_peer in (("U", peer), ("T", "session-b")):
            served = await server.handle(request(3, "tools/call", other, slow=False),
                                         notify=quiet, peer=other_peer)
            assert served is not None and "result" in served, served
        tg.cancel_scope.cancel()  # the first ends (cancelled): its token is free again
    assert [m["params"]["progressToken"] for m in heard] == ["T"]  # the first's only
    again = await server.handle(request(4, second, "T", slow=False), notify=quiet, peer=peer)
    assert again is not None and "result" in again, again
    assert not server._progress_tokens


@pytest.mark.parametrize("token", [1, "1", 1.5, "T" * 1000])
async def test_tokens_are_told_apart_by_value(server: McpServer, token: Any) -> None:
    async with anyio.create_task_group() as tg:
        tg.start_soon(functools.partial(server.handle, request(1, "tools/call", token),
                                        notify=quiet, peer="p"))
        await anyio.wait_all_tasks_blocked()
        same = await server.handle(request(2, "tools/call", token, slow=False),
                                   notify=quiet, peer="p")
        other = await server.handle(request(3, "tools/call", None, slow=False),
                                    notify=quiet, peer="p")  # no token at all: served
        tg.cancel_scope.cancel()
    assert same is not None and same["error"]["code"] == -32602
    assert other is not None and "result" in other


@pytest.mark.parametrize("failure", ["tool raises", "bad requestState", "unknown tool",
                                     "guard raises"])
async def test_a_request_that_fails_frees_its_token(server: McpServer, failure: str) -> None:
    message = request(1, "tools/call", "F", slow=False)
    params = message["params"]
    if failure == "tool raises":
        params["name"] = "fails"
    elif failure == "bad requestState":
        params["_meta"] = {**modern_meta(), "progressToken": "F"}
        params["requestState"] = "not one toolhost sent"
    elif failure == "unknown tool":
        params["name"] = "nope"

    async def guard(*args: Any) -> ToolResult | None:
        raise RuntimeError("guard bug")

    server.guard = guard if failure == "guard raises" else None
    try:
        for request_id in (1, 2):  # the second is never refused for the first's token
            message["id"] = request_id
            answer = await server.handle(message, notify=quiet, peer="p")
            assert answer is not None
            assert "progressToken" not in str(answer.get("error")), answer
    finally:
        server.guard = None
    assert not server._progress_tokens


@pytest.fixture(scope="module")
def keeping(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    """A server whose ``keep`` tool and ``done://`` resource keep their ``ctx.progress``."""
    module = MODULE.replace("def fetch(x: str) -> str:", """\
def fetch(x: str, *, ctx: CallContext) -> str:
    from tests.mcp.test_progress_tokens import KEPT
    KEPT[:] = [ctx.progress]""")
    core = content_server(tmp_path_factory.mktemp("keeping"),
                          CONFIG.replace("tokenmod", "tokenmod2"), {"tokenmod2": module})
    core.set_tools([make_tool("keep", keep, schema={})])
    return core


@pytest.mark.parametrize("method", ["tools/call", "resources/read"])
async def test_progress_after_the_answer_is_not_sent(
        keeping: McpServer, method: str, caplog: pytest.LogCaptureFixture) -> None:
    heard: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        heard.append(message)

    KEPT.clear()
    answer = await keeping.handle(request(1, method, "T", slow=False), notify=notify,
                                  peer="p")
    assert answer is not None and "result" in answer, answer
    (sender,) = KEPT
    before = len(heard)
    with caplog.at_level(logging.DEBUG, logger="toolhost.mcp"):
        await sender(50, 100, "late")  # a task the call left behind, after the answer
    assert len(heard) == before
    assert "the request was answered already" in caplog.text
