"""One server and one way to hold a request in flight, for the tests of what happens while a
request runs and once it ends (cancel, progress tokens, ids, the end of a call).

``build`` makes a core with a slow and a quick form of each method that can run a function:
tools/call, resources/read, prompts/get and completion/complete (``METHODS``). A slow one
reports progress 1, notes its start in ``STARTED`` and sleeps a minute (only a cancel ends
it); a quick one keeps its context in ``KEPT`` (what a task it left behind would hold).
``request`` builds the message of either form; ``in_flight`` runs one until it started.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.results import ToolResult

from .mcp_testtools import content_server, make_tool

METHODS = ["tools/call", "resources/read", "prompts/get", "completion/complete"]
STARTED: list[str] = []  # what each slow function was given, as it started
KEPT: list[CallContext] = []  # the context of the last quick request
MODULE = '''\
import anyio
from toolhost.backends.base import CallContext
from tests.mcp.inflight import KEPT, STARTED

async def slow(x: str, *, ctx: CallContext) -> str:
    STARTED.append(x)
    await ctx.progress(1)
    await anyio.sleep(60)
    return "late"

async def slow_values(value: str, *, ctx: CallContext) -> list:
    return [await slow(value, ctx=ctx)]

def fetch(x: str, *, ctx: CallContext) -> str:
    KEPT[:] = [ctx]
    return x

def values(value: str, *, ctx: CallContext) -> list:
    KEPT[:] = [ctx]
    return [value]
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      slow: {uri: "slow://{x}", python: "MODULE:slow"}
      done: {uri: "done://{x}", python: "MODULE:fetch", complete: {x: "MODULE:slow_values"}}
      fast: {uri: "fast://{x}", python: "MODULE:fetch", complete: {x: "MODULE:values"}}
    prompts:
      wait: {python: "MODULE:slow"}
      quick: {python: "MODULE:fetch"}
"""


async def hold(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    STARTED.append("hold")
    await ctx.progress(1)
    await anyio.sleep(60)
    return ToolResult.text("late")


async def keep(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    KEPT[:] = [ctx]
    await ctx.progress(1)
    return ToolResult.text("kept")


async def fails(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    raise RuntimeError("boom")


def build(root: Path, module: str) -> McpServer:
    """The server (``module``: the name of its python module, one per test file: a process
    imports a name once)."""
    core = content_server(root, CONFIG.replace("MODULE", module), {module: MODULE})
    core.set_tools([make_tool("hold", hold, schema={}), make_tool("keep", keep, schema={}),
                    make_tool("fails", fails, schema={})])
    return core


def request(request_id: Any, method: str, token: Any = None, *, slow: bool = True,
            meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A request of ``method``'s slow or quick form; ``token``: its progressToken (None:
    none), ``meta``: more of its ``_meta``."""
    params: dict[str, Any]
    if method == "tools/call":
        params = {"name": "hold" if slow else "keep"}
    elif method == "resources/read":
        params = {"uri": "slow://x" if slow else "fast://x"}
    elif method == "prompts/get":
        params = {"name": "wait" if slow else "quick", "arguments": {"x": "x"}}
    else:
        params = {"ref": {"type": "ref/resource", "uri": "done://{x}" if slow else "fast://{x}"},
                  "argument": {"name": "x", "value": "x"}}
    if token is not None or meta:
        params["_meta"] = {**(meta or {}), **({} if token is None else {"progressToken": token})}
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


async def quiet(message: dict[str, Any]) -> None:
    pass


class Flight:
    """A request running in a task: ``answers`` gets its answer when it ends; ``stop``
    cancels the task (the request ends without an answer, as when its transport goes)."""

    def __init__(self, scope: anyio.CancelScope) -> None:
        self.answers: list[dict[str, Any] | None] = []
        self._scope = scope

    def stop(self) -> None:
        self._scope.cancel()


@asynccontextmanager
async def in_flight(server: McpServer, message: dict[str, Any], *, peer: Any,
                    notify: Any = quiet) -> AsyncIterator[Flight]:
    """``message`` handled in a task of its own, once its slow function has started. The
    block ends when the request does: the test cancels it (``notifications/cancelled``) or
    stops it (``Flight.stop``, last in the block), or fails after 10 s instead of waiting a
    minute."""
    STARTED.clear()
    async with anyio.create_task_group() as tg:
        flight = Flight(tg.cancel_scope)
        done = anyio.Event()

        async def run() -> None:
            try:
                flight.answers.append(await server.handle(message, notify=notify, peer=peer))
            finally:
                done.set()

        tg.start_soon(run)
        with anyio.fail_after(10):
            while not STARTED:
                await anyio.sleep(0.005)
        yield flight
        if not tg.cancel_scope.cancel_called:
            with anyio.fail_after(10):
                await done.wait()
