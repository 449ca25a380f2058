"""``--max-connections`` bounds connections, not only requests: idle connections past it are
answered 503 and closed as they open, so however many a client opens the server's file
descriptors stay bounded, nothing else in the process runs out of files, and the log says so
in one line (no accept-error tracebacks). The soft ``ulimit -n`` is raised to fit the limit,
or the limit lowered to fit (with a warning) when the hard one is too low.

A real ``toolhost serve`` under ``prlimit`` and hundreds of raw idle sockets."""

from __future__ import annotations

import os
import re
import shutil
import socket
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.modern import MODERN_META_JSON
from tests.serve.conftest import http_process
from tests.serve.kb_config import KB_HEAD
from toolhost.serve.http_limits import FD_HEADROOM

pytestmark = pytest.mark.skipif(shutil.which("prlimit") is None or not Path("/proc").is_dir(),
                                reason="needs prlimit and /proc")

CONFIG = KB_HEAD + "permissions:\n  default: allow\n"
LIST = (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":'
        + MODERN_META_JSON + b'}}')


def request(host: str, port: int) -> bytes:
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json"
                     b"\r\nmcp-method: tools/list"
                     b"\r\nconnection: close\r\ncontent-length: " + str(len(LIST)).encode()
                     + b"\r\n\r\n" + LIST)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
        return out


def soft_nofile(pid: int) -> int:
    limits = Path(f"/proc/{pid}/limits").read_text()
    match = re.search(r"Max open files\s+(\d+)", limits)
    assert match, limits
    return int(match.group(1))


# (soft, hard ulimit -n, --max-connections, connections opened, connections served at most)
CASES = [
    (64, 4096, 40, 120, 40),  # the soft limit is raised to fit 40 and the headroom
    (300, 300, 1000, 380, 300 - FD_HEADROOM),  # the hard limit is too low: lowered to fit
    (512, 512, 100, 250, 100),
]


@pytest.mark.parametrize(("soft", "hard", "limit", "opened", "served_at_most"), CASES)
def test_idle_connections_past_the_limit_are_refused_as_they_open(
        tmp_path: Path, soft: int, hard: int, limit: int, opened: int,
        served_at_most: int) -> None:
    (tmp_path / "kb.yaml").write_text(CONFIG)
    argv = ["prlimit", f"--nofile={soft}:{hard}", "--", sys.executable, "-m", "toolhost",
            "serve", str(tmp_path / "kb.yaml"), "--transport", "http", "--port", "0",
            "--max-connections", str(limit), "--header-timeout", "30"]
    log = tmp_path / "server.log"
    with http_process(argv, log) as (url, proc):
        parts = urlsplit(url)
        host, port = parts.hostname or "", parts.port or 0
        base = len(os.listdir(f"/proc/{proc.pid}/fd"))
        held: list[socket.socket] = []
        try:
            for _ in range(opened):
                held.append(socket.create_connection((host, port), timeout=10))
            # the last ones were answered 503 and closed; the first ones are held open
            # (the last one answered: every one before it was taken in or refused)
            held[-1].settimeout(5)
            answer = held[-1].recv(4096)
            assert answer.startswith(b"HTTP/1.1 503 ") and b"max-connections" in answer
            deadline = time.monotonic() + 5  # the refused ones closing
            while (fds := len(os.listdir(f"/proc/{proc.pid}/fd"))) - base > max(
                    served_at_most, 1) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert fds - base <= max(served_at_most, 1), (fds, base)
            if hard >= limit + FD_HEADROOM:
                assert soft_nofile(proc.pid) >= limit + FD_HEADROOM
            for sock in held[:50]:  # room again: a request is answered
                sock.close()
            deadline = time.monotonic() + 10  # until the server has seen them close
            while not (answered := request(host, port)).startswith(b"HTTP/1.1 200 ") \
                    and time.monotonic() < deadline:
                time.sleep(0.05)
            assert answered.startswith(b"HTTP/1.1 200 "), answered
        finally:
            for sock in held:
                sock.close()
    text = log.read_text()
    assert "Traceback" not in text and "Too many open files" not in text, text[-2000:]
    assert text.count("refused connections") == 1, text[-2000:]
    assert ("serving at most" in text) == (hard < limit + FD_HEADROOM), text[-2000:]


LISTEN = (b'{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":'
          b'{"toolsListChanged":true},"_meta":' + MODERN_META_JSON + b'}}')


def test_streams_keep_half_of_the_connections_actually_served(tmp_path: Path) -> None:
    """With too few files for --max-connections 1000, 44 connections are served: at most 22
    of them streams, so requests still get through."""
    (tmp_path / "kb.yaml").write_text(CONFIG)
    argv = ["prlimit", "--nofile=300:300", "--", sys.executable, "-m", "toolhost", "serve",
            str(tmp_path / "kb.yaml"), "--transport", "http", "--port", "0"]
    with http_process(argv, tmp_path / "server.log") as (url, _proc):
        parts = urlsplit(url)
        where = (parts.hostname or "", parts.port or 0)
        held: list[socket.socket] = []
        try:
            for _ in range(23):
                sock = socket.create_connection(where, timeout=10)
                held.append(sock)
                sock.sendall(b"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: "
                             b"application/json\r\nmcp-method: subscriptions/listen\r\n"
                             b"content-length: "
                             + str(len(LISTEN)).encode() + b"\r\n\r\n" + LISTEN)
                sock.settimeout(2)
                head = b""
                try:  # a stream's first event, or the whole busy answer
                    while b"}" not in head:
                        head += sock.recv(4096)
                except TimeoutError:
                    pass
            assert b"Server busy" in head and b"streams are open" in head, head
            assert request(*where).startswith(b"HTTP/1.1 200 ")
        finally:
            for sock in held:
                sock.close()
