"""HTTP request bodies still being read count against ``--max-in-flight-bytes``: many slow
clients each sending a large body cannot hold more than the budget between them (the excess
is refused at once, "server busy"), the bytes come back when a body times out or its client
goes, memory stays bounded, and other calls are still answered (a real ``toolhost serve``)."""

from __future__ import annotations

import contextlib
import select
import socket
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from tests.serve.conftest import http_process, server_env

CONFIG = """\
toolhost: 1
servers:
  calc:
    tools:
      add: {python: "toolhost.demo:add"}
permissions:
  default: allow
"""
HEADERS = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
BUDGET = 4 * 1024 * 1024
PART = 700_000  # of a declared 1 MiB body: at most 5 fit in the budget


def _open_body(port: int, sent: int) -> socket.socket:
    """A POST declaring a 1 MiB body, of which ``sent`` bytes are sent, the rest never."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    # refused and closed while we were still sending (its head too, on a loaded machine)
    with contextlib.suppress(OSError):
        sock.sendall((f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                      "Content-Type: application/json\r\nAccept: application/json\r\n"
                      f"Content-Length: {1024 * 1024}\r\n\r\n").encode())
        sock.sendall(b" " * sent)
    return sock


def _bodies(held: contextlib.ExitStack, port: int, count: int) -> list[socket.socket]:
    """``count`` bodies of PART bytes, each closed with ``held`` if not before."""
    return [held.enter_context(_open_body(port, PART)) for _ in range(count)]


def _answers(socks: list[socket.socket], wait: float, held: int = 0
             ) -> tuple[list[bytes], int]:
    """What the server answered on each socket within ``wait`` seconds (b"" = closed), and
    how many it left open without a word (the bodies it still holds); stops early once at
    most ``held`` are left (a server holding more still fails by the deadline)."""
    got: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and len(got) < len(socks) - held:
        ready, _, _ = select.select([s for s in socks if s not in got], [], [], 0.2)
        for sock in ready:
            got[sock] = _read_all(sock)
    return list(got.values()), len(socks) - len(got)


def _read_all(sock: socket.socket) -> bytes:
    """What the server sent until it closed (b"" when it reset the connection)."""
    data = b""
    sock.settimeout(2)
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except OSError:
        pass
    return data


def _rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return next(int(x.split()[1]) for x in status.splitlines() if x.startswith("VmRSS:")) / 1024


def test_bodies_being_read_count_against_the_byte_budget(tmp_path: Path) -> None:
    config = tmp_path / "calc.yaml"
    config.write_text(CONFIG)
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0", "--max-in-flight-bytes", str(BUDGET), "--max-message", "1MiB",
            "--body-timeout", "5"]
    log = tmp_path / "server.log"
    with http_process(argv, log, env=server_env()) as (url, proc), \
            httpx.Client(timeout=30) as client, contextlib.ExitStack() as held_open:
        port = urlsplit(url).port or 80
        call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
        assert client.post(url, headers=HEADERS, json=call).json()["result"]["isError"] is False
        before = _rss_mb(proc.pid)
        started = time.monotonic()
        slow = _bodies(held_open, port, 40)
        answers, held = _answers(slow, 3, held=BUDGET // PART)
        assert held <= BUDGET // PART, f"{held} bodies of {PART:,} bytes held"
        assert len(answers) >= 40 - BUDGET // PART
        assert all(a == b"" or a.startswith(b"HTTP/1.1 503") for a in answers), answers
        said = [a for a in answers if a]
        assert all(b"Server busy" in a and b"--max-in-flight-bytes" in a for a in said), said
        grown = _rss_mb(proc.pid) - before
        assert grown < 20, f"RSS grew {grown:.0f} MB while 40 x {PART:,} byte bodies arrived"
        # others are still answered: a small call fits beside the held bodies
        assert client.post(url, headers=HEADERS, json=call).json()["result"]["isError"] is False
        assert client.get(url.replace("/mcp", "/healthz")).status_code == 200
        assert time.monotonic() - started < 5, "too slow to test before the body timeout"
        # the held bodies time out (408): their bytes come back, five new ones fit again
        time.sleep(max(0.0, started + 6 - time.monotonic()))
        for sock in slow:
            sock.close()
        again = _bodies(held_open, port, BUDGET // PART)
        answers, held = _answers(again, 1.5)
        assert held == len(again), answers
        for sock in again:  # the clients go: their bytes come back too
            sock.close()
        time.sleep(0.5)
        third = _bodies(held_open, port, BUDGET // PART)
        answers, held = _answers(third, 1.5)
        assert held == len(third), answers
        for sock in third:
            sock.close()
        assert client.post(url, headers=HEADERS, json=call).json()["result"]["isError"] is False
    text = log.read_text()
    assert "refused a request whose body was arriving" in text
    assert "Traceback" not in text
