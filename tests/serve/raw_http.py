"""Raw HTTP/1.1 over a socket, for tests that send what no client library would."""

from __future__ import annotations

import socket
import time

import pytest


def exchange(where: tuple[str, int], data: bytes, *, pieces: int = 1,
             timeout: float = 10) -> bytes:
    """Send ``data`` (in ``pieces`` parts, 50 ms apart), then read until the server closes:
    what it said. A server that waits instead times the socket out and the test fails; it
    never hangs. A server that refuses before all is sent is still heard."""
    with socket.create_connection(where, timeout=timeout) as sock:
        step = -(-len(data) // pieces) or 1
        try:
            for start in range(0, len(data), step):
                sock.sendall(data[start:start + step])
                if pieces > 1:
                    time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass  # refused before it was all sent: what the server said is still read
        out = b""
        try:
            while chunk := sock.recv(65536):
                out += chunk
        except ConnectionResetError:
            pass
        except TimeoutError:
            pytest.fail(f"no answer within {timeout} s; got {out[:200]!r}")
        return out


def status(answer: bytes) -> int:
    """The first answer's status code (0: no HTTP answer at all)."""
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def answers(raw: bytes) -> list[tuple[int, dict[str, bytes], bytes]]:
    """The HTTP/1.1 answers in ``raw`` (content-length framed, or none): status, headers
    (lower-cased names), body each."""
    found = []
    while raw.startswith(b"HTTP/1.1 "):
        head, _, rest = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        headers = {k.strip().lower().decode(): v.strip()
                   for k, _, v in (h.partition(b":") for h in lines[1:])}
        length = int(headers.get("content-length", b"0"))
        found.append((int(lines[0].split()[1]), headers, rest[:length]))
        raw = rest[length:]
    return found
