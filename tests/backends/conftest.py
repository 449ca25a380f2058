"""A real HTTP server on 127.0.0.1 (stdlib, in a thread) for the http backend; HostConfig
builders are in tests/conftest.py."""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def png_bytes() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data)))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"\x00\x00")) + chunk(b"IEND", b""))


@dataclass
class Seen:
    method: str
    path: str  # raw, as sent
    client_port: int
    headers: dict[str, str]
    body: bytes


@dataclass
class Server:
    url: str
    seen: list[Seen] = field(default_factory=list)
    attempts: dict[str, int] = field(default_factory=dict)
    # /api/raw/<name>: a body sent as it is, with these headers (Content-Encoding, ...)
    raw: dict[str, tuple[bytes, dict[str, str]]] = field(default_factory=dict)


class _QuietServer(ThreadingHTTPServer):
    """A client that drops its connection (a timeout test, a pooled connection closed at
    the end of a test) is no error of the server: no traceback on stderr for it."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):
            super().handle_error(request, client_address)


def serve() -> Iterator[Server]:
    state = Server(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, so connection pooling is visible

        def log_message(self, format: str, *args: Any) -> None:
            return None

        def reply(self, status: int, body: bytes, content_type: str,
                  headers: dict[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def handle_any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            with lock:
                state.seen.append(Seen(self.command, self.path, self.client_address[1],
                                       {k.lower(): v for k, v in self.headers.items()}, body))
            parts = urlsplit(self.path)
            query = parse_qs(parts.query, keep_blank_values=True)
            path = parts.path
            if path.startswith("/api/echo"):
                doc = {"method": self.command, "path": path, "query": query,
                       "headers": {k.lower(): v for k, v in self.headers.items()},
                       "body": body.decode()}
                self.reply(200, json.dumps(doc).encode(), "application/json")
            elif path == "/api/json":
                doc = {"data": {"items": [{"name": "a"}, {"name": "b"}]}}
                self.reply(200, json.dumps(doc).encode(), "application/json; charset=utf-8")
            elif path == "/api/text":
                self.reply(200, "plain text é".encode(), "text/plain; charset=utf-8")
            elif path == "/api/image":
                self.reply(200, png_bytes(), "image/png")
            elif path == "/api/big":
                self.reply(200, b"x" * 100_000, "text/plain")
            elif path.startswith("/api/status/"):
                code = int(path.rsplit("/", 1)[1])
                self.reply(code, f"nope: {code}".encode(), "text/plain")
            elif path.startswith("/api/flaky/"):
                key = path.rsplit("/", 1)[1]
                with lock:
                    state.attempts[key] = state.attempts.get(key, 0) + 1
                    n = state.attempts[key]
                if n <= int(query.get("fail", ["0"])[0]):
                    extra = {"Retry-After": query["after"][0]} if "after" in query else {}
                    self.reply(int(query.get("code", ["503"])[0]), b"busy", "text/plain",
                               extra)
                else:
                    self.reply(200, json.dumps({"attempts": n}).encode(), "application/json")
            elif path.startswith("/api/raw/"):
                raw, headers = state.raw[path.rsplit("/", 1)[1]]
                self.reply(200, raw, headers.get("Content-Type", "text/plain"),
                           {k: v for k, v in headers.items() if k != "Content-Type"})
            elif path == "/api/redirect":
                self.reply(302, b"", "text/plain", {"Location": f"{state.url}/secret"})
            else:
                self.reply(404, b"not found", "text/plain")

        do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any

    httpd = _QuietServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def server() -> Iterator[Server]:
    yield from serve()


@pytest.fixture
def png() -> bytes:
    return png_bytes()


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A port on 127.0.0.1 and the list of connections made to it (each answered with a
    line, then closed): a tool that must never connect where a value says is watched here."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    got: list[bytes] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            got.append(b"connected")
            with conn:
                conn.sendall(b"from the network\n")

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield server.getsockname()[1], got
    finally:
        server.close()
