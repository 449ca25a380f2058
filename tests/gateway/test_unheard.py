"""An upstream's notifications that toolhost never acts on (logs, progress, methods of its
own) are dropped where they are read, before the mcp client handles each in a task of its
own: a flood of them during a call no longer keeps the host busy for as long. Those it acts
on (a list change) still arrive."""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.gateway import transport
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


def test_over_stdio_a_dropped_line_is_never_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    # the flood's lines are told from their bytes: none reaches the full parse (pydantic, a
    # message built, a hand-over between tasks: 26 us of the host's CPU per line, 4 us now)
    parsed: list[bytes] = []
    full = transport._parse

    def counting(line: bytes, wire: transport.Wire) -> Any:
        parsed.append(line)
        return full(line, wire)

    monkeypatch.setattr(transport, "_parse", counting)
    with chattering("stdio") as spec:
        heard_only(UpstreamConnection(spec, "h"))
    # initialize's answer, tools/list's, the call's, the list change: never the flood
    assert len(parsed) < 20, [line[:80] for line in parsed[:25]]


def _line(message: Any) -> bytes:
    return json.dumps(message).encode()


@pytest.mark.parametrize("line", [
    # each is read by the full path as what it is, so it is not dropped before that
    b'{"jsonrpc": "2.0", "id": 1, "method": "notifications/message"}',  # a request
    b'{"jsonrpc": "2.0", "\\u0069d": 1, "method": "notifications/x"}',  # its id escaped
    b'{"jsonrpc": "2.0", "method": "notifications/x", "params": 5}',  # not JSON-RPC
    b'{"jsonrpc": "1.0", "method": "notifications/x"}',
    b'{"jsonrpc": "2.0", "method": 7}',
    b'{"jsonrpc": "2.0", "method": "notifications/x"',  # cut short
    b'{"jsonrpc": "2.0", "method": "notifications/message", '
    b'"method": "notifications/tools/list_changed"}',  # the last of a key is the one read
    b'[{"jsonrpc": "2.0", "method": "notifications/x"}]',
    b'{"jsonrpc": "2.0", "method": "notifications/resources/updated", "params": {}}',
])
def test_a_line_is_dropped_only_when_it_is_an_unheard_notification(line: bytes) -> None:
    unheard = Unheard()
    assert not unheard.drops_line(line)
    assert unheard.count == 0


_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                       lambda inner: st.lists(inner, max_size=3)
                       | st.dictionaries(st.sampled_from(["id", "method", "x"]), inner,
                                         max_size=3), max_leaves=8)
_METHODS = st.sampled_from([*sorted(HEARD), "notifications/message", "notifications/x", ""])


@settings(max_examples=300)
@given(keys=st.dictionaries(st.sampled_from(["jsonrpc", "id", "method", "params", "result",
                                             "error"]),
                            _VALUES | _METHODS | st.just("2.0"), max_size=5),
       escaped=st.booleans())
def test_what_is_dropped_is_what_the_full_path_reads_as_an_unheard_notification(
        keys: dict[str, Any], escaped: bool) -> None:
    import mcp_types
    from pydantic import ValidationError

    line = _line(keys)
    if escaped:  # a key spelled with escapes is the same key to a JSON reader
        line = line.replace(b'"id"', b'"\\u0069d"').replace(b'"method"', b'"m\\u0065thod"')
    dropped = Unheard().drops_line(line)
    try:
        message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
    except ValidationError:
        assert not dropped
        return
    unheard = isinstance(message, mcp_types.JSONRPCNotification) and \
        message.method not in HEARD
    assert dropped <= unheard  # never a request, an answer or a heard notification
    if unheard and not escaped and b'"id"' not in line:
        # (the common spelling is the cheap one; a line holding "id" anywhere, in params
        # too, takes the full path: never a request's id missed)
        assert dropped
