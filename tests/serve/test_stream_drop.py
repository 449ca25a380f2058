"""Long-lived streams end for good: a GET or listen stream whose client stops reading is
dropped and its connection closed at once (its socket, task and queue freed, not held until
the client goes); a session keeps at most ``MAX_SESSION_STREAMS`` (a new one ends the
oldest); the server keeps at most half of ``--max-connections`` (one more is "busy").

A real ``toolhost serve`` (``small_streams_main``: small queues and send buffers, so falling
behind takes a second of notifications), raw sockets that never read, files touched so the
resource watcher has news every second."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_process, server_env
from tests.serve.kb_config import KB_HEAD
from tests.serve.routing import routing
from toolhost.serve.http_streams import MAX_SESSION_STREAMS

FILES = 300
MODERN = modern_meta()
CONFIG = KB_HEAD + """\
    resources:
      notes: {directory: notes, uri: "notes://kb"}
permissions:
  default: allow
"""
NAMES = [f"{i:03}{'n' * 120}.txt" for i in range(FILES)]  # long: the socket fills sooner
URIS = [f"notes://kb/{name}" for name in NAMES]


class Served:
    def __init__(self, url: str, pid: int, log: Path, notes: Path) -> None:
        self.url, self.pid, self.log, self.notes = url, pid, log, notes
        parts = urlsplit(url)
        self.host, self.port, self.path = parts.hostname or "", parts.port or 0, parts.path

    def fds(self) -> int:
        return len(os.listdir(f"/proc/{self.pid}/fd"))

    def touch(self) -> None:
        for name in os.listdir(self.notes):
            os.utime(self.notes / name)

    def raw(self, method: str, body: Any = None, headers: dict[str, str] | None = None, *,
            rcvbuf: int = 0) -> socket.socket:
        """A request on a connection of its own, left open for the caller to read (or not)."""
        sock = socket.socket()
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(10)
        sock.connect((self.host, self.port))
        data = json.dumps(body).encode() if body is not None else b""
        head = {"host": f"127.0.0.1:{self.port}", "accept": "application/json, text/event-stream",
                "content-type": "application/json", "content-length": str(len(data)),
                **(routing(body) if isinstance(body, dict) else {}), **(headers or {})}
        sock.sendall(f"{method} {self.path} HTTP/1.1\r\n".encode()
                     + "".join(f"{k}: {v}\r\n" for k, v in head.items()).encode() + b"\r\n"
                     + data)
        return sock

    def answer(self, body: Any, headers: dict[str, str] | None = None) -> tuple[bytes, bytes]:
        """A short request's whole answer: (head, body)."""
        sock = self.raw("POST", body, {**(headers or {}), "connection": "close"})
        with sock:
            data = read_all(sock)
        head, _, rest = data.partition(b"\r\n\r\n")
        return head, rest

    def session(self) -> str:
        head, _ = self.answer({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        for line in head.split(b"\r\n"):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"mcp-session-id":
                return value.strip().decode()
        raise AssertionError(head)


def read_all(sock: socket.socket, seconds: float = 10) -> bytes:
    out = b""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        out += chunk
    return out


def closed_by_server(sock: socket.socket, seconds: float = 10) -> bool:
    """Whether the server ends the connection: everything it sent can be read, then EOF."""
    sock.settimeout(1)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if not sock.recv(1 << 20):
                return True
        except ConnectionResetError:
            return True
        except TimeoutError:
            continue
    return False


def still_open(sock: socket.socket) -> bool:
    """Whether the connection stays open (what was sent read, then nothing for a while)."""
    sock.settimeout(0.5)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return True
    except ConnectionResetError:
        return False
    return False


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    notes = tmp_path / "notes"
    notes.mkdir()
    for name in NAMES:
        (notes / name).write_text("x")
    (tmp_path / "kb.yaml").write_text(CONFIG)
    env = {**server_env(), "SMALL_QUEUE": "64"}
    argv = [sys.executable, str(HERE / "small_streams_main.py"), "serve",
            str(tmp_path / "kb.yaml"), "--transport", "http", "--port", "0",
            "--max-connections", "16", "--shutdown-grace", "1"]
    with http_process(argv, tmp_path / "server.log", env=env) as (url, proc):
        yield Served(url, proc.pid, tmp_path / "server.log", notes)


def listen(uris: list[str]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen", "params": {
        "notifications": {"resourceSubscriptions": uris}, "_meta": MODERN}}


def open_unread(served: Served, kind: str) -> socket.socket:
    """A stream hearing about every file, on a connection that is never read."""
    if kind == "listen":
        return served.raw("POST", listen(URIS), rcvbuf=4096)
    sid = served.session()
    for i, uri in enumerate(URIS):
        head, _ = served.answer({"jsonrpc": "2.0", "id": i + 1, "method": "resources/subscribe",
                                 "params": {"uri": uri}}, {"mcp-session-id": sid})
        assert b" 200 " in head.split(b"\r\n")[0], head
    return served.raw("GET", headers={"mcp-session-id": sid}, rcvbuf=4096)


@pytest.mark.parametrize("kind", ["listen", "GET"])
def test_a_stream_that_is_not_read_is_dropped_and_its_connection_closed(served: Served,
                                                                         kind: str) -> None:
    before = served.fds()
    sock = open_unread(served, kind)
    with sock:
        time.sleep(0.5)
        assert served.fds() == before + 1
        deadline = time.monotonic() + 30
        while "behind" not in served.log.read_text() and time.monotonic() < deadline:
            served.touch()
            time.sleep(1.1)
        assert "behind" in served.log.read_text(), served.log.read_text()
        # the server's end is gone at once, though this client still holds its end, unread
        deadline = time.monotonic() + 5
        while served.fds() > before and time.monotonic() < deadline:
            time.sleep(0.1)
        assert served.fds() == before
        assert closed_by_server(sock)
    # the server goes on: a new stream opens and is heard, a call is answered
    head, body = served.answer({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                                "params": {"_meta": MODERN}})
    assert b" 200 " in head.split(b"\r\n")[0] and b'"echo"' in body
    assert "Traceback" not in served.log.read_text()


def _get(served: Served, sid: str) -> socket.socket:
    sock = served.raw("GET", headers={"mcp-session-id": sid})
    assert b" 200 " in sock.recv(200)
    return sock


def test_a_session_keeps_its_newest_streams(served: Served) -> None:
    sid = served.session()
    streams = [_get(served, sid) for _ in range(MAX_SESSION_STREAMS + 2)]
    try:
        assert closed_by_server(streams[0]) and closed_by_server(streams[1])
        assert all(still_open(kept) for kept in streams[2:])
        # a listen stream in the session counts too: it ends the oldest GET stream
        in_session = listen(URIS[:1])
        del in_session["params"]["_meta"]  # the session's era
        streams.append(served.raw("POST", in_session, {"mcp-session-id": sid}))
        assert closed_by_server(streams[2])
    finally:
        for sock in streams:
            sock.close()


@pytest.mark.parametrize("last", ["GET", "listen"])
def test_the_server_keeps_at_most_half_its_connections_as_streams(served: Served,
                                                                   last: str) -> None:
    held = []
    try:
        for i in range(8):  # --max-connections 16: eight streams, each of its own session
            held.append(_get(served, served.session()) if i % 2 else
                        served.raw("POST", listen(URIS[:1])))
        time.sleep(0.3)
        if last == "GET":
            sid = served.session()
            sock = served.raw("GET", headers={"mcp-session-id": sid, "connection": "close"})
            with sock:
                data = read_all(sock)
            assert b" 503 " in data.split(b"\r\n")[0] and b"Server busy" in data, data
        else:
            _, body = served.answer(listen(URIS[:1]))
            assert json.loads(body)["error"]["code"] == -32000, body
        # requests are still answered meanwhile
        head, _ = served.answer({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                                 "params": {"_meta": MODERN}})
        assert b" 200 " in head.split(b"\r\n")[0]
        held.pop().close()  # one ends: there is room again
        time.sleep(0.5)
        sock = served.raw("POST", listen(URIS[:1]))
        held.append(sock)
        assert b" 200 " in sock.recv(200)
    finally:
        for sock in held:
            sock.close()
