"""A legacy session's GET stream that the server closes ends by saying why (a real
``toolhost serve`` over HTTP, raw sockets): at SIGTERM an SSE comment and a ``retry`` field
(SEP-1699: when to reconnect, to a replica that serves on), after ``DELETE`` and at expiry a
comment naming that. Before, each ended with no word: a client could not tell a shutdown
(reconnect elsewhere) from a lost connection or an ended session (start again)."""

from __future__ import annotations

import json
import signal
import socket
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from tests.serve.conftest import http_process
from tests.serve.kb_config import KB_HEAD
from toolhost.serve.http_streams import SHUTDOWN_RETRY_MS

CONFIG = KB_HEAD + "permissions: {default: allow}\n"


def _request(where: tuple[str, int], method: str, head: dict[str, str], body: bytes = b""
             ) -> socket.socket:
    sock = socket.create_connection(where, timeout=10)
    head = {"host": f"127.0.0.1:{where[1]}", "content-length": str(len(body)), **head}
    sock.sendall(f"{method} /mcp HTTP/1.1\r\n".encode() + "".join(
        f"{k}: {v}\r\n" for k, v in head.items()).encode() + b"\r\n" + body)
    return sock


def _read_to_end(sock: socket.socket) -> bytes:
    out = b""
    with sock:
        while chunk := sock.recv(65536):
            out += chunk
    return out


def _session(where: tuple[str, int]) -> str:
    body = json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}).encode()
    answer = _read_to_end(_request(where, "POST", {
        "content-type": "application/json", "accept": "application/json, text/event-stream",
        "connection": "close"}, body))
    for line in answer.split(b"\r\n\r\n")[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"mcp-session-id":
            return value.strip().decode()
    raise AssertionError(answer)


def _stream(where: tuple[str, int], session: str) -> socket.socket:
    sock = _request(where, "GET", {"accept": "text/event-stream", "mcp-session-id": session})
    seen = b""
    try:
        while b": stream open" not in seen:
            chunk = sock.recv(65536)
            assert chunk, seen
            seen += chunk
    except BaseException:
        sock.close()
        raise
    return sock


def _serve(tmp_path: Path):  # type: ignore[no-untyped-def]
    config = tmp_path / "kb.yaml"
    config.write_text(CONFIG)
    return http_process([sys.executable, "-m", "toolhost", "serve", str(config),
                         "--transport", "http", "--port", "0"], tmp_path / "server.log")


def _where(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "", parts.port or 0


def test_at_shutdown_a_get_stream_says_so_and_when_to_reconnect(tmp_path: Path) -> None:
    with _serve(tmp_path) as (url, proc):
        where = _where(url)
        stream = _stream(where, _session(where))
        proc.send_signal(signal.SIGTERM)
        tail = _read_to_end(stream)  # (closes it)
        proc.wait(30)
    assert b": the server is shutting down" in tail, tail
    assert f"\nretry: {SHUTDOWN_RETRY_MS}\n\n".encode() in tail, tail
    assert tail.endswith(b"0\r\n\r\n"), tail  # the response's clean end, not a cut


def test_a_deleted_session_s_stream_says_it_was_ended(tmp_path: Path) -> None:
    with _serve(tmp_path) as (url, _proc):
        where = _where(url)
        session = _session(where)
        with _stream(where, session) as stream:  # (closed too if the DELETE fails)
            deleted = _read_to_end(_request(where, "DELETE", {"mcp-session-id": session,
                                                              "connection": "close"}))
            assert deleted.startswith(b"HTTP/1.1 204"), deleted
            stream.settimeout(10)
            tail = _until_end(stream)
    assert b": the session was ended (DELETE)" in tail, tail
    assert b"retry:" not in tail  # nothing to reconnect to


def _until_end(sock: socket.socket) -> bytes:
    """What the server sends until the response's last chunk (the connection stays open)."""
    out = b""
    deadline = time.monotonic() + 10
    with sock:
        while not out.endswith(b"0\r\n\r\n") and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            out += chunk
    return out
