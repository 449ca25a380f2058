"""A client that half-closes its connection once its request is sent (``shutdown(SHUT_WR)``,
``nc -N``) is answered, pipelined requests included, and the connection then closes; a
client that closes its connection during a call still cancels it (the server finds out by
writing), also when it half-closed first. A real process, raw sockets."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.modern import modern_meta
from tests.serve.conftest import http_server
from tests.serve.routing import routing

from .hostile_corpus import call, write_config
from .test_hostile_http import env, read_all

JSON_ONLY = "application/json"
BOTH = "application/json, text/event-stream"


class Served:
    def __init__(self, url: str, tmp: Path) -> None:
        parts = urlsplit(url)
        self.addr = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.tmp = tmp

    def request(self, body: bytes, accept: str = BOTH) -> bytes:
        routed = "".join(f"{k}: {v}\r\n" for k, v in routing(json.loads(body)).items())
        return (f"POST /mcp HTTP/1.1\r\nHost: {self.addr[0]}\r\ncontent-type: application/json"
                f"\r\naccept: {accept}\r\n{routed}content-length: {len(body)}\r\n\r\n"
                ).encode() + body

    def connect(self) -> socket.socket:
        return socket.create_connection(self.addr, timeout=15)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("half")
    config = write_config(tmp / "bb.yaml")
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0"]
    with http_server(argv, tmp / "server.log", env=env()) as url:
        yield Served(url, tmp)
    assert "Traceback" not in (tmp / "server.log").read_text(errors="replace")


def answers(raw: bytes) -> list[dict[str, Any]]:
    """The JSON-RPC answers in what a connection received (JSON bodies or SSE events)."""
    found = []
    for part in raw.split(b"HTTP/1.1 ")[1:]:
        head, _, body = part.partition(b"\r\n\r\n")
        assert head.startswith(b"200 "), part[:300]
        if b"text/event-stream" in head:
            found += [json.loads(line[6:]) for line in body.splitlines()
                      if line.startswith(b"data: ")]
        else:
            length = int(next(h.split(b":")[1] for h in head.split(b"\r\n")
                              if h.lower().startswith(b"content-length:")))
            found.append(json.loads(body[:length]))
    return found


def echo(n: int) -> bytes:
    return call("echo", {"text": f"half-{n}"}, request_id=n)


@pytest.mark.parametrize("accept", [JSON_ONLY, BOTH])
def test_half_closed_requests_are_answered_then_the_connection_closes(
        served: Served, accept: str) -> None:
    with served.connect() as sock:
        sock.sendall(served.request(echo(1), accept) + served.request(echo(2), accept))
        sock.shutdown(socket.SHUT_WR)
        raw = read_all(sock)  # until the server closes: nothing more will come
    got = answers(raw)
    assert [a["result"]["content"][0]["text"] for a in got] == ["half-1", "half-2"], raw[:600]


@pytest.mark.parametrize("accept", [JSON_ONLY, BOTH])
def test_a_slow_call_of_a_half_closed_client_finishes_and_is_answered(
        served: Served, accept: str) -> None:
    marker = served.tmp / f"slow-{len(accept)}"
    # longer than PROBE_AFTER: the server checks by writing whether anyone still reads
    body = call("watched", {"marker": str(marker), "seconds": 1.5}, request_id="slow")
    with served.connect() as sock:
        sock.sendall(served.request(body, accept))
        sock.shutdown(socket.SHUT_WR)
        raw = read_all(sock)
    assert [a["result"]["content"][0]["text"] for a in answers(raw)] == ["slept 1.5"], raw
    assert (b": still working" in raw) == (accept == BOTH)  # an SSE comment: no message
    assert marker.read_text() == "done"


@pytest.mark.parametrize("half_close_first", [False, True])
def test_a_client_that_closes_during_a_call_cancels_it(served: Served,
                                                       half_close_first: bool) -> None:
    marker = served.tmp / f"gone-{half_close_first}"
    body = call("watched", {"marker": str(marker)}, request_id="gone")
    sock = served.connect()
    sock.sendall(served.request(body))
    if half_close_first:
        sock.shutdown(socket.SHUT_WR)
    deadline = time.monotonic() + 15
    started = Path(f"{marker}.started")
    while not started.exists() and time.monotonic() < deadline:  # however slow the machine
        time.sleep(0.02)
    sock.close()
    while not marker.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert marker.exists() and marker.read_text() == "cancelled"


INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "t", "version": "1"}}}
LISTEN = {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
    "notifications": {"toolsListChanged": True},
    "_meta": modern_meta()}}


@pytest.mark.parametrize("kind", ["GET", "listen"])
def test_a_stream_whose_client_half_closes_ends(served: Served, kind: str) -> None:
    # nothing would ever be written to a quiet stream: a client that closed it must not
    # keep it (and its slot among the streams) open until the server stops
    if kind == "GET":
        with served.connect() as sock:
            sock.sendall(served.request(json.dumps(INITIALIZE).encode()))
            sock.shutdown(socket.SHUT_WR)
            head = read_all(sock).split(b"\r\n\r\n")[0].decode()
        sid = next(line.split(":", 1)[1].strip() for line in head.split("\r\n")
                   if line.lower().startswith("mcp-session-id:"))
        request = (f"GET /mcp HTTP/1.1\r\nHost: {served.addr[0]}\r\naccept: text/event-stream"
                   f"\r\nmcp-session-id: {sid}\r\n\r\n").encode()
    else:
        request = served.request(json.dumps(LISTEN).encode())
    with served.connect() as sock:
        sock.sendall(request)
        time.sleep(0.3)  # the stream is open
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(10)
        data = b""
        while chunk := sock.recv(65536):  # TimeoutError: the stream stayed open
            data += chunk
    assert data.startswith(b"HTTP/1.1 200"), data[:300]
    # and it ends well formed (the chunked body's end): a GET stream was cut off without
    # it, and the server logged "ASGI callable returned without completing response"
    assert data.endswith(b"\r\n0\r\n\r\n"), data[-300:]
    # (that line was written before the connection closed, so before the EOF read here)
    log = (served.tmp / "server.log").read_text(errors="replace")
    assert "without completing response" not in log and "ERROR" not in log, log
