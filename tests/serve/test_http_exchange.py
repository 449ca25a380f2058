"""A POST's event stream whose client stops reading: the write that waits longer than
``--write-timeout`` (``Limits.write_timeout``) drops the connection and cancels the call.
Before, the call waited for the client for as long as it kept the connection open: past
the tool's timeout, and a sync tool's thread handing over its next progress notification
was counted stuck (8 such calls refused the tool to every client). In process: the real
ASGI app, core and sync pool; an ASGI ``send`` that stops returning stands for a socket
nobody reads."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import anyio
import pytest

from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.limits import DEFAULT_LIMITS
from toolhost.mcp import McpServer
from toolhost.serve import http_writes
from toolhost.serve.http import HttpServer
from toolhost.serve.http_streams import ABORT_EXTENSION

STOPPED = threading.Event()
TOOLS = '''
import threading
import anyio.from_thread
from toolhost.backends.base import CallContext


def chatty(*, ctx: CallContext) -> str:
    """Report progress from its thread until stopped."""
    try:
        for i in range(10**9):
            anyio.from_thread.run(ctx.progress, i + 1, None, "x" * 1000)
    finally:
        __import__("tests.serve.test_http_exchange", fromlist=["STOPPED"]).STOPPED.set()
    return "never"


async def chatty_async(*, ctx: CallContext) -> str:
    """The same from the event loop."""
    try:
        for i in range(10**9):
            await ctx.progress(i + 1, None, "x" * 1000)
    finally:
        __import__("tests.serve.test_http_exchange", fromlist=["STOPPED"]).STOPPED.set()
    return "never"


async def big(*, ctx: CallContext) -> str:
    """A progress notification, then an answer of 300 KB (an event that large: a progress
    message is cut at 10,000 characters)."""
    await ctx.progress(1, None, "started")
    return "big done " + "z" * 300_000
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      chatty: {python: "stall_tools:chatty"}
      chatty_async: {python: "stall_tools:chatty_async"}
      big: {python: "stall_tools:big", max_output_chars: 400000}
permissions:
  default: allow
"""


@pytest.fixture(scope="module")
def core(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root = tmp_path_factory.mktemp("stall")
    (root / "stall_tools.py").write_text(TOOLS)
    (root / "kb.yaml").write_text(CONFIG)
    try:
        compiled = compile_tools(load_config(root / "kb.yaml", layers=False))
    finally:
        sys.modules.pop("stall_tools", None)
    return McpServer("kb", "1", compiled.servers["kb"])


@pytest.mark.parametrize(("tool", "grace_ends"), [("chatty", False), ("chatty_async", False),
                                                  ("chatty_async", True)])
def test_a_client_that_stops_reading_is_dropped_and_its_call_stopped(
        tool: str, grace_ends: bool, core: McpServer) -> None:
    """``grace_ends``: a shutdown's grace ends first (the call is cancelled while its write
    waits); the -32800 it then writes on the open stream waits no longer than a write."""
    STOPPED.clear()
    server = HttpServer(core, limits=DEFAULT_LIMITS.replace(
        write_timeout=0.5 if grace_ends else 0.2))
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": {}, "_meta": {"progressToken": "p"}}}).encode()
    aborted = anyio.Event()
    written: list[dict[str, Any]] = []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/mcp", "raw_path": b"/mcp",
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 80), "extensions": {ABORT_EXTENSION: aborted.set},
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                         (b"accept", b"application/json, text/event-stream"),
                         (b"content-length", str(len(body)).encode())]}
    received = False

    async def receive() -> dict[str, Any]:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": body, "more_body": False}
        await anyio.sleep_forever()  # the client is still connected
        raise AssertionError

    full = anyio.Event()

    async def send(message: dict[str, Any]) -> None:
        written.append(message)
        if len(written) >= 3:  # the socket's buffers are full: nothing more is taken
            full.set()
            await anyio.sleep_forever()

    async def run() -> None:
        with anyio.fail_after(10):  # (the old code never returned)
            async with anyio.create_task_group() as tg:
                tg.start_soon(server.app, scope, receive, send)
                if grace_ends:
                    await full.wait()
                    server.in_flight.cancel_all("the grace ended")
            await aborted.wait()
            await anyio.to_thread.run_sync(STOPPED.wait)

    anyio.run(run)
    assert written[0]["status"] == 200 and aborted.is_set() and STOPPED.is_set()
    assert all(b'"result"' not in m.get("body", b"") for m in written)


def test_a_large_event_is_written_in_pieces(core: McpServer) -> None:
    """A 300 KB event goes to the client in pieces of ``STALL_PIECE`` bytes, each a write of
    its own within ``--write-timeout``: as one write, a slow client that reads all along (1 MB
    in over 10 s) was dropped as one that does not read."""
    server = HttpServer(core)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "big", "arguments": {}, "_meta": {"progressToken": "p"}}}).encode()
    written: list[dict[str, Any]] = []
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": "/mcp", "raw_path": b"/mcp",
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 80), "extensions": {},
             "headers": [(b"host", b"127.0.0.1"), (b"content-type", b"application/json"),
                         (b"accept", b"application/json, text/event-stream"),
                         (b"content-length", str(len(body)).encode())]}
    bodies = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> dict[str, Any]:
        if bodies:
            return bodies.pop()
        await anyio.sleep_forever()
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        written.append(message)

    anyio.run(server.app, scope, receive, send)
    pieces = [m["body"] for m in written if m["type"] == "http.response.body"]
    assert max(map(len, pieces)) <= http_writes.STALL_PIECE < 300_000
    stream = b"".join(pieces)
    assert b"z" * 300_000 in stream and b"big done" in stream
    assert [m.get("more_body", False) for m in written[1:]][-1] is False
