"""``input_hung_up``: whether the client closed our stdin while requests it sent may still
be unread, for every kind of stdin a client hands a server: a pipe, a Unix socket (as
``socketpair``: ``shutdown`` or ``close``), a TCP socket (inetd, systemd's ``Accept=yes``)
and a pseudo-terminal whose other side closed. (Before, a socket whose peer stopped sending
was never seen as hung up: the server kept waiting on a client that had left.)"""

from __future__ import annotations

import os
import pty
import select
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO, Any

import pytest

from toolhost.serve.stdio_writer import input_hung_up

LINE = b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n'  # sent, never read


@contextmanager
def pipe(end: bool) -> Iterator[IO[bytes]]:
    read, write = os.pipe()
    os.write(write, LINE)
    if end:
        os.close(write)
    try:
        with open(read, "rb", buffering=0) as reader:
            yield reader
    finally:
        if not end:
            os.close(write)


@contextmanager
def socket_pair(how: str) -> Iterator[Any]:
    ours, theirs = socket.socketpair()
    with ours, theirs:
        theirs.sendall(LINE)
        if how == "shutdown":
            theirs.shutdown(socket.SHUT_WR)  # still reading our answers
        elif how == "close":
            theirs.close()
        yield ours


@contextmanager
def tcp(how: str) -> Iterator[Any]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        ours, _ = server.accept()
        with ours, client:
            client.sendall(LINE)
            if how == "shutdown":
                client.shutdown(socket.SHUT_WR)
            elif how == "close":
                client.close()
            if how != "open":  # wait until the end has reached our side (loopback: at once)
                seen = select.poll()
                seen.register(ours, select.POLLRDHUP)
                seen.poll(5000)
            yield ours


@contextmanager
def terminal(end: bool) -> Iterator[IO[bytes]]:
    main, other = pty.openpty()
    os.write(main, LINE)
    if end:
        os.close(main)
    try:
        with open(other, "rb", buffering=0) as reader:
            yield reader
    finally:
        if not end:
            os.close(main)


KINDS: list[tuple[str, Callable[[], Any], bool]] = [
    ("pipe open", lambda: pipe(False), False),
    ("pipe closed", lambda: pipe(True), True),
    ("unix socket open", lambda: socket_pair("open"), False),
    ("unix socket shut for writing", lambda: socket_pair("shutdown"), True),
    ("unix socket closed", lambda: socket_pair("close"), True),
    ("tcp open", lambda: tcp("open"), False),
    ("tcp shut for writing", lambda: tcp("shutdown"), True),
    ("tcp closed", lambda: tcp("close"), True),
    ("terminal open", lambda: terminal(False), False),
    ("terminal hung up", lambda: terminal(True), True),
]


@pytest.mark.parametrize(("kind", "make", "hung_up"), KINDS, ids=[k[0] for k in KINDS])
def test_a_closed_input_is_seen_beside_unread_lines(kind: str, make: Callable[[], Any],
                                                    hung_up: bool) -> None:
    with make() as reader:
        assert input_hung_up(reader) is hung_up


def test_what_has_no_file_descriptor_is_not_hung_up() -> None:
    assert input_hung_up(object()) is False
