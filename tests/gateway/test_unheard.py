"""An upstream's notifications that toolhost never acts on (logs, progress, methods of its
own) are dropped where they are read, before the mcp client handles each in a task of its
own: a flood of them during a call no longer keeps the host busy for as long. Those it acts
on (a list change) still arrive."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.spec import UpstreamSpec
from toolhost.gateway.unheard import HEARD, Unheard

from .conftest import HOSTILE, http_upstream

FLOOD = 2_000


@contextmanager
def chattering(transport: str) -> Iterator[UpstreamSpec]:
    env = {"HOSTILE_MODE": "chatter", "HOSTILE_N": str(FLOOD)}
    if transport == "stdio":
        yield UpstreamSpec(command=(sys.executable, str(HOSTILE)), env=env)
        return
    with http_upstream(HOSTILE, **env) as port:  # (the notes on the call's event stream)
        yield UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp")


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_flood_of_unused_notifications_never_reaches_the_client(transport: str) -> None:
    with chattering(transport) as spec:
        heard_only(UpstreamConnection(spec, "h"))


def heard_only(connection: UpstreamConnection) -> None:
    seen: list[str] = []
    changed = threading.Event()
    heard = connection.watch.on_message

    async def counting(message: Any) -> None:  # what the mcp client hands on
        seen.append(type(message).__name__)
        if type(message).__name__ == "ToolListChangedNotification":
            changed.set()
        await heard(message)

    connection.watch.on_message = counting  # type: ignore[method-assign]
    try:
        result = connection.call_tool("echo", {"text": "hi"}, 60.0)
        assert result["isError"] is False, result
        assert changed.wait(30), seen[-5:]  # the list change is still heard
        assert set(seen) == {"ToolListChangedNotification"}, sorted(set(seen))[:5]
    finally:
        connection.close()


def test_only_a_notification_outside_the_heard_ones_is_dropped() -> None:
    import mcp_types
    from mcp.shared.message import SessionMessage

    unheard = Unheard()
    for method in sorted(HEARD):
        note = mcp_types.JSONRPCNotification(jsonrpc="2.0", method=method, params={})
        assert not unheard.drops(SessionMessage(note))
    for method in ("notifications/message", "notifications/progress", "notifications/x"):
        note = mcp_types.JSONRPCNotification(jsonrpc="2.0", method=method, params={})
        assert unheard.drops(SessionMessage(note))
    # a request or an answer of the same method name is never a notification dropped
    request = mcp_types.JSONRPCRequest(jsonrpc="2.0", id=1, method="notifications/message")
    assert not unheard.drops(SessionMessage(request))
    assert not unheard.drops(ValueError("a transport's error"))
    assert unheard.count == 3
