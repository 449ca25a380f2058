"""An answer of millions of JSON values is refused unread, over stdio and Streamable HTTP: a
call's over 250,000, any other message (a listing's page) over 1,000,000. Building them held
the GIL, so the whole host, for seconds; the connection carries on."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from toolhost.gateway.client import UpstreamConnection, UpstreamError
from toolhost.gateway.spec import UpstreamSpec
from toolhost.gateway.value_count import ValueCount

from .conftest import HOSTILE, http_upstream


@contextmanager
def connected(kind: str, **env: str) -> Iterator[UpstreamConnection]:
    if kind == "http":
        with http_upstream(HOSTILE, **env) as port:
            spec = UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp", connect_timeout=20.0)
            connection = UpstreamConnection(spec, "h")
            try:
                yield connection
            finally:
                connection.close()
        gc.collect()  # a socket left open (the mcp client never closed its http client) warns
        return
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), env=env, connect_timeout=20.0)
    connection = UpstreamConnection(spec, "h")
    try:
        yield connection
    finally:
        connection.close()


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_too_many_values_are_refused_and_the_connection_carries_on(kind: str) -> None:
    with connected(kind, HOSTILE_MODE="many_values", HOSTILE_N="300000") as connection:
        result = connection.call_tool("echo", {"text": "x"}, 30.0)
        assert result["isError"] is True
        assert ("upstream server 'h' sent an answer of more than 250,000 JSON values (refused "
                "unread)") in result["content"][0]["text"]
        assert [t["name"] for t in connection.list_tools()] == ["echo"]


@pytest.mark.parametrize("kind", ["stdio", "http"])
def test_a_listing_page_of_too_many_values_is_refused(kind: str) -> None:
    with connected(kind, HOSTILE_MODE="many_listed", HOSTILE_N="1100000") as connection, \
            pytest.raises(UpstreamError, match=r"more than 1,000,000 JSON values \(refused "
                          r"unread\)"):
        connection.list_tools()


@pytest.mark.parametrize("size", [1, 2, 3, 7, 4096])
def test_values_are_counted_outside_strings_whatever_the_chunks(size: int) -> None:
    body = (b'{"a":[1,2,[3,{"b":"x,[{\\"y"}]],"c":"\\\\","d":"q\\"[,"}')
    count = ValueCount(10**9)
    for at in range(0, len(body), size):
        count.feed(body[at:at + size])
    assert count.count == 9
    # an event stream is counted per event; a string broken by a line's end hides nothing
    events = (b'event: message\r\ndata: {"a":"[,\r\n\r\ndata: [[],[],[]]\r\n\r\n'
              b'data: {"x":"\n\ndata: ' + b"[]," * 40 + b"1\n\n")
    count = ValueCount(30, events=True)
    assert any(count.feed(events[at:at + size]) for at in range(0, len(events), size))
    count, head = ValueCount(30, events=True), events[:-130]  # all but the big event
    assert not any(count.feed(head[at:at + size]) for at in range(0, len(head), size))


def test_the_cap_of_an_http_answer_follows_its_request() -> None:
    """A call's answer gets the call's cap, even when its arguments are large."""
    import httpx2

    from toolhost.gateway.http_caps import _values_cap

    def cap(body: str) -> int:
        return _values_cap(httpx2.Request("POST", "http://127.0.0.1:9/mcp",
                                          content=body.encode()))

    big = "x" * 100_000
    assert cap('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t",'
               f'"arguments":{{"q":"{big}"}}}}}}') == 250_000
    assert cap('{"jsonrpc":"2.0","id":"a","method":"resources/read","params":{}}') == 250_000
    assert cap('{"params":{"name":"t"},"method":"prompts/get","id":2}') == 250_000
    assert cap('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"q":"tools/call"}}') \
        == 1_000_000
    assert cap("") == 1_000_000
