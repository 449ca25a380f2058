"""``--max-connections`` is shared fairly between clients: one client holding every
connection, each waiting for a request (its head sent slowly, or none) or sending a body
slowly, cannot keep another client out. A connection past the limit closes one of the
client holding the most, if it holds more than the newcomer's client plus one and the
connection is owed no answer; the newcomer of the client holding the most is still refused,
and a connection running a call is never closed for another.

A real ``toolhost serve`` and raw sockets from two loopback addresses (127.0.0.1, 127.0.0.2)."""

from __future__ import annotations

import json
import selectors
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.modern import MODERN_META_JSON
from tests.serve.conftest import http_process
from tests.serve.gate_tools import release, wait_entered
from toolhost.serve.http_admission import RECEIVING_BODY, WAITING_HEAD, Seats, holder_of_peer
from toolhost.serve.http_shares import Shares, share_of

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="second loopback address")

CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      held: {python: "tests.serve.gate_tools:held"}
permissions: {default: allow}
"""
LIMIT = 12
SHARE = share_of(LIMIT)  # what one client may have under way


def _body(method: str, params: bytes = b"{}") -> bytes:
    meta = b'"_meta":' + MODERN_META_JSON
    inner = params[:-1] + (b"," if params != b"{}" else b"") + meta + b"}"
    return b'{"jsonrpc":"2.0","id":1,"method":"' + method.encode() + b'","params":' + inner + b"}"


LIST = _body("tools/list")


def _held_call(gate: Path) -> bytes:
    arguments = json.dumps({"name": "held", "arguments": {"gate": str(gate)}}).encode()
    return _body("tools/call", arguments)


def _head(method: str, length: int, *, close: bool = True) -> bytes:
    return (b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            b"accept: application/json, text/event-stream\r\nmcp-method: " + method.encode()
            + (b"\r\nmcp-name: held" if method == "tools/call" else b"")
            + (b"\r\nconnection: close" if close else b"")
            + b"\r\ncontent-length: " + str(length).encode() + b"\r\n\r\n")


def _second_loopback() -> str:
    try:
        with socket.socket() as sock:
            sock.bind(("127.0.0.2", 0))
    except OSError:
        pytest.skip("cannot send from 127.0.0.2 here")
    return "127.0.0.2"


def _answer(sock: socket.socket) -> bytes:
    sock.settimeout(20)
    out = b""
    while chunk := sock.recv(65536):
        out += chunk
    return out


def _list_from(source: str, where: tuple[str, int]) -> bytes:
    with socket.create_connection(where, timeout=20, source_address=(source, 0)) as sock:
        sock.sendall(_head("tools/list", len(LIST)) + LIST)
        return _answer(sock)


@contextmanager
def _server(tmp_path: Path) -> Iterator[tuple[tuple[str, int], Path]]:
    (tmp_path / "kb.yaml").write_text(CONFIG)
    argv = [sys.executable, "-m", "toolhost", "serve", str(tmp_path / "kb.yaml"),
            "--transport", "http", "--port", "0", "--max-connections", str(LIMIT),
            "--header-timeout", "60", "--body-timeout", "60"]
    log = tmp_path / "server.log"
    with http_process(argv, log) as (url, _proc):
        parts = urlsplit(url)
        yield (parts.hostname or "", parts.port or 0), log


def _fill(where: tuple[str, int], send: bytes) -> list[socket.socket]:
    """LIMIT connections from 127.0.0.1 each sending ``send`` and no more; one more is
    refused (the client holding them all gets no more), so every one before it was taken
    in."""
    held: list[socket.socket] = []
    try:
        for _ in range(LIMIT):
            held.append(socket.create_connection(where, timeout=20))
            held[-1].sendall(send)
        held.append(socket.create_connection(where, timeout=20))
        assert _answer(held[-1]).startswith(b"HTTP/1.1 503 "), "the limit was not reached"
    except BaseException:
        for sock in held:  # (not left for the collector: a ResourceWarning in a later test)
            sock.close()
        raise
    return held


@pytest.mark.parametrize("send", [
    b"", b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\n",  # no head, half a head
    _head("tools/list", len(LIST), close=False) + LIST[:5],  # a body sent slowly
], ids=["idle", "half-head", "slow-body"])
def test_one_client_holding_every_connection_does_not_keep_another_out(
        tmp_path: Path, send: bytes) -> None:
    other = _second_loopback()
    with _server(tmp_path) as (where, log):
        held = _fill(where, send)
        try:
            for _ in range(3):  # each time one of the first client's is closed instead
                answer = _list_from(other, where)
                assert answer.startswith(b"HTTP/1.1 200 ") and b'"held"' in answer, answer
        finally:
            for sock in held:
                sock.close()
    text = log.read_text()
    assert "closing those of the client holding the most (127.0.0.1)" in text, text[-2000:]
    assert "Traceback" not in text, text[-3000:]


def _answers_of_those_done(socks: list[socket.socket], count: int
                           ) -> dict[socket.socket, bytes]:
    """The whole answers of the first ``count`` of ``socks`` to be answered and closed
    (each asked with ``connection: close``), waiting on their readability."""
    pending = {sock: b"" for sock in socks}
    done: dict[socket.socket, bytes] = {}
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        while len(done) < count:
            ready = selector.select(timeout=30)
            assert ready, f"only {len(done)} of {count} answers came"
            for key, _events in ready:
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                chunk = sock.recv(65536)
                if chunk:
                    pending[sock] += chunk
                    continue
                selector.unregister(sock)
                done[sock] = pending.pop(sock)
    return done


def test_a_client_running_calls_on_every_connection_leaves_others_a_quarter(
        tmp_path: Path) -> None:
    """A connection running a call is never closed for another, so one client sending a
    call on each connection it can open would hold them all: it has three quarters of them
    running at most, the rest are answered "server busy" at once, and another client is
    served; every call run is answered."""
    other = _second_loopback()
    gate = tmp_path / "gate"
    gate.mkdir()
    call = _held_call(gate)
    with _server(tmp_path) as (where, log):
        held = []
        try:
            for _ in range(LIMIT):
                sock = socket.create_connection(where, timeout=20)
                sock.sendall(_head("tools/call", len(call)) + call)
                held.append(sock)
            busy = _answers_of_those_done(held, LIMIT - SHARE)
            assert all(b"Server busy: this client has" in a for a in busy.values()), busy
            wait_entered(gate, SHARE)
            for _ in range(3):
                answer = _list_from(other, where)
                assert answer.startswith(b"HTTP/1.1 200 ") and b'"held"' in answer, answer
            assert len(list(gate.glob("entered-*"))) == SHARE
            release(gate)
            ran = _answers_of_those_done([s for s in held if s not in busy], SHARE)
            assert all(a.startswith(b"HTTP/1.1 200 ") and b"released" in a
                       for a in ran.values()), ran
        finally:
            release(gate)
            for sock in held:
                sock.close()
    assert "refused requests of client 127.0.0.1" in log.read_text()


LISTEN = (b'{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":'
          b'{"toolsListChanged":true},"_meta":' + MODERN_META_JSON + b'}}')


def _listen(where: tuple[str, int], source: str) -> tuple[socket.socket, bytes]:
    """A listen stream from ``source``: its socket and its first bytes (a stream's first
    event, or the whole busy answer)."""
    sock = socket.create_connection(where, timeout=20, source_address=(source, 0))
    try:
        sock.sendall(_head("subscriptions/listen", len(LISTEN), close=False) + LISTEN)
        head = b""
        while b"}" not in head and (chunk := sock.recv(4096)):
            head += chunk
    except BaseException:
        sock.close()
        raise
    return sock, head


def test_one_client_holding_every_stream_does_not_leave_another_none(tmp_path: Path) -> None:
    """Streams are at most half the connections (LIMIT // 2 here); one client holding them
    all has its oldest dropped for another client's, and gets no more itself."""
    other = _second_loopback()
    with _server(tmp_path) as (where, log):
        held: list[socket.socket] = []
        try:
            for _ in range(LIMIT // 2):
                sock, head = _listen(where, "127.0.0.1")
                held.append(sock)
                assert b"Server busy" not in head, head
            sock, head = _listen(where, "127.0.0.1")  # the same client: no more for it
            held.append(sock)
            assert b"streams are open" in head, head
            sock, head = _listen(where, other)
            held.append(sock)
            assert head.startswith(b"HTTP/1.1 200 ") and b"Server busy" not in head, head
            oldest = held[0]  # dropped: its connection closed
            oldest.settimeout(20)
            try:
                while oldest.recv(4096):
                    pass
            except ConnectionResetError:
                pass
        finally:
            for sock in held:
                sock.close()
    assert "dropping the oldest of the client holding the most (127.0.0.1)" \
        in log.read_text()


def test_the_victim_is_of_the_client_holding_the_most_and_owed_nothing() -> None:
    seats = Seats()
    ranks: dict[str, int | None] = {}
    for name, rank in [("a1", None), ("a2", RECEIVING_BODY), ("a3", WAITING_HEAD),
                       ("b1", WAITING_HEAD), ("b2", WAITING_HEAD), ("b3", WAITING_HEAD)]:
        seats.take(name[0], name)
        ranks[name] = rank
    seats.take("c", "c1")
    ranks["c1"] = None
    # c (1 with the newcomer) holds less than a (3) and b (3) by more than one: a, the
    # older, gives up its oldest connection waiting for a head before one receiving a body
    assert seats.victim("c", ranks.get) == "a3"
    ranks["a3"] = None
    assert seats.victim("c", ranks.get) == "a2"
    ranks["a2"] = None
    assert seats.victim("c", ranks.get) == "b1"  # a has none it may close: the next
    # b (3) does not hold more than a (3) plus one: a keeps its connections
    assert seats.victim("b", ranks.get) is None
    seats.take("c", "c2")
    seats.take("c", "c3")
    assert seats.victim("c", ranks.get) is None  # nobody holds more than c plus one
    for name in ["a1", "a2", "a3"]:
        seats.give_back("a", name)
    assert seats.count("a") == 0 and seats.count("c") == 3


@pytest.mark.parametrize(("peer", "holder"), [
    (("127.0.0.1", 5000), "127.0.0.1"),
    (("2001:db8::1", 5000, 0, 0), "2001:db8::/64"),
    (("2001:db8::ffff:1", 5001, 0, 0), "2001:db8::/64"),
    (("::ffff:10.0.0.7", 5000, 0, 0), "10.0.0.7"),
    (None, ""),
])
def test_a_connection_is_held_by_its_address_an_ipv6_one_by_its_64(
        peer: object, holder: str) -> None:
    assert holder_of_peer(peer) == holder


@pytest.mark.anyio
async def test_streams_take_from_the_client_holding_the_most_and_never_twice_one() -> None:
    from toolhost.serve.http_streams import Streams

    streams = Streams(4)
    mine = [streams.open(None, holder="a") for _ in range(4)]
    assert all(stream is not None for stream in mine)
    assert streams.open(None, holder="a") is None  # its own newcomer: nobody else to take from
    theirs = streams.open(None, holder="b")
    assert theirs is not None and mine[0] is not None and mine[0].dropped
    assert not any(stream is not None and stream.dropped for stream in mine[1:])
    # the dropped one counts until its response ends, but is not taken again
    again = streams.open(None, holder="b")
    assert again is not None and mine[1] is not None and mine[1].dropped
    for stream in mine[:2]:
        assert stream is not None
        streams.done(stream, None)
    assert streams.count == 4
    # a and b hold 2 each now: b's third would leave a less than b, so it is refused
    assert streams.open(None, holder="b") is None
    assert not any(stream is not None and stream.dropped for stream in mine[2:])


def test_a_clients_share_counts_its_requests_and_streams_and_is_given_back() -> None:
    assert [share_of(n) for n in (1, 2, 3, 4, 8, 1000)] == [1, 2, 3, 3, 6, 750]
    streams = {"a": 0}
    shares = Shares(8, lambda holder: streams.get(holder, 0))
    taken = [shares.take("a", i) for i in range(3)]
    streams["a"] = 2  # streams count in the share, the requests opening them do not
    opened = shares.take("a", "listen", count=False)
    assert all(callable(give) for give in [*taken, opened])
    streams["a"] = 3
    refused = shares.take("a", 9)
    assert isinstance(refused, dict) and refused["id"] == 9
    assert "this client has 6 requests and streams under way" in refused["error"]["message"]
    assert callable(shares.take("b", 1))  # another client's share is its own
    give = taken[0]
    assert callable(give)
    give()
    assert shares.held("a") == 5 and callable(shares.take("a", 10))
