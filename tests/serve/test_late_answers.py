"""A client's answer to ``ctx.elicit`` that reaches no question waiting for it is refused
(HTTP 409, a JSON-RPC error saying why), never taken with a 202 and dropped: the call that
asked was cancelled (its client closed the response stream), it was answered already, or the
server never asked it. An answer that comes while the call's client has closed its side (a
client gone, or one that half-closed and still reads) is held until a write tells which: the
call of a client gone is cancelled and the answer refused, instead of reaching a tool whose
result nobody reads (a booking made for a client that walked away); a client still reading
gets its result. A real process, raw sockets."""

from __future__ import annotations

import json
import os
import re
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import pytest

from tests.serve.conftest import HERE, http_server, server_env
from toolhost.mcp.client_requests import ClientRequestError, Pending

CONFIG = """\
toolhost: 1
servers:
  trips:
    tools:
      book: {python: "elicit_tools:book"}
permissions:
  allow: [mcp__trips__book]
"""
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {"elicitation": {}},
    "clientInfo": {"name": "t", "version": "1"}}}
SEATS = {"action": "accept", "content": {"seat": "aisle", "nights": 2}}


class Served:
    def __init__(self, url: str, log: Path) -> None:
        parts = urlsplit(url)
        self.addr = (parts.hostname or "127.0.0.1", parts.port or 80)
        self.log = log
        self.session = ""

    def head(self, body: bytes) -> bytes:
        session = f"mcp-session-id: {self.session}\r\n" if self.session else ""
        return (f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                f"accept: application/json, text/event-stream\r\n{session}"
                f"content-length: {len(body)}\r\n\r\n").encode() + body

    def post(self, message: dict[str, Any]) -> tuple[int, bytes]:
        """One POST on a connection of its own: the status and the body."""
        with socket.create_connection(self.addr, timeout=15) as sock:
            sock.sendall(self.head(json.dumps(message).encode()))
            raw = b""
            while b"\r\n\r\n" not in raw:
                raw += sock.recv(65536)
            head, _, body = raw.partition(b"\r\n\r\n")
            length = re.search(rb"content-length: (\d+)", head, re.IGNORECASE)
            while length is not None and len(body) < int(length.group(1)):
                body += sock.recv(65536)
            if not self.session:
                found = re.search(rb"mcp-session-id: (\S+)", head, re.IGNORECASE)
                assert found is not None, raw
                self.session = found.group(1).decode()
            return int(head.split()[1]), body

    def asked(self, call_id: int) -> tuple[socket.socket, str]:
        """Call ``book`` on a connection of its own and read until it asks: the connection
        and the id of the question."""
        sock = socket.create_connection(self.addr, timeout=15)
        try:
            sock.sendall(self.head(json.dumps({
                "jsonrpc": "2.0", "id": call_id, "method": "tools/call",
                "params": {"name": "book", "arguments": {"city": "Lyon"}}}).encode()))
            raw = b""
            while b"elicitation/create" not in raw:
                chunk = sock.recv(65536)
                assert chunk, raw
                raw += chunk
            found = re.search(rb'"id":\s*"([^"]+)"',
                              raw[raw.index(b"elicitation/create") - 200:])
            assert found is not None, raw
        except BaseException:
            sock.close()  # (not left for the collector: a ResourceWarning in a later test)
            raise
        return sock, found.group(1).decode()

    def outcome(self, call_id: int) -> str:
        """What the access log says of call ``call_id`` (waiting for its line)."""
        pattern = re.compile(rf"tools/call name=book id={call_id} .*outcome=(\w+)")
        deadline = time.monotonic() + 10
        while not (found := pattern.search(self.log.read_text(errors="replace"))):
            assert time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.05)
        return found.group(1)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    tmp = tmp_path_factory.mktemp("late")
    config = tmp / "trips.yaml"
    config.write_text(CONFIG)
    env = server_env()
    env["PYTHONPATH"] = os.pathsep.join((str(HERE), env["PYTHONPATH"]))
    argv = [sys.executable, "-m", "toolhost", "serve", str(config), "--transport", "http",
            "--port", "0"]
    with http_server(argv, tmp / "server.log", env=env) as url:
        served = Served(url, tmp / "server.log")
        assert served.post(INIT)[0] == 200
        yield served
    assert "Traceback" not in (tmp / "server.log").read_text(errors="replace")


def refusal(body: bytes) -> str:
    answer = json.loads(body)
    assert answer["id"] is None and answer["error"]["code"] == -32600, answer
    return str(answer["error"]["message"])


@pytest.mark.parametrize(("call_id", "delay"), [(10, 0.0), (11, 0.5), (12, 2.5)])
def test_an_answer_after_the_client_closed_the_call_is_refused_and_never_used(
        served: Served, call_id: int, delay: float) -> None:
    sock, question = served.asked(call_id)
    sock.close()  # the client walks away from the call (before: 202, and the tool booked)
    time.sleep(delay)
    status, body = served.post({"jsonrpc": "2.0", "id": question, "result": SEATS})
    assert status == 409, body
    message = refusal(body)
    assert question in message and "cancelled" in message, message
    assert served.outcome(call_id) == "cancelled"


def test_a_half_closed_client_still_reading_gets_its_answer_used(served: Served) -> None:
    sock, question = served.asked(20)
    sock.shutdown(socket.SHUT_WR)  # done sending (nc -N), still reading
    with sock:
        status, body = served.post({"jsonrpc": "2.0", "id": question, "result": SEATS})
        assert (status, body) == (202, b"")
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    assert b'booked Lyon: {\\"nights\\": 2, \\"seat\\": \\"aisle\\"}' in raw, raw[-400:]
    assert served.outcome(20) == "ok"


def test_an_answer_sent_twice_or_to_no_question_is_refused_saying_so(served: Served) -> None:
    sock, question = served.asked(30)
    with sock:
        assert served.post({"jsonrpc": "2.0", "id": question, "result": SEATS})[0] == 202
        status, body = served.post({"jsonrpc": "2.0", "id": question, "result": SEATS})
        assert status == 409 and "answered already" in refusal(body)
    status, body = served.post({"jsonrpc": "2.0", "id": "toolhost-77", "result": {}})
    assert status == 409 and "sent no request with the id 'toolhost-77'" in refusal(body)


def test_a_new_connection_or_revived_session_never_reuses_a_question_id() -> None:
    # A session evicted and revived from its signed id (or met on another replica) asks
    # with a new Pending: an answer to the old one's question must not fit the new one's
    async def asks(pending: Pending) -> str:
        sent: list[str] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message["id"])
        with pytest.raises(ClientRequestError):
            await pending.request(send, "elicitation/create", {}, timeout=0.01)
        return sent[0]

    async def run() -> None:
        old, new = Pending(), Pending()
        asked = await asks(old)
        assert await asks(new) != asked
        waiting = anyio.Event()

        async def wait() -> None:
            async def send(message: dict[str, Any]) -> None:
                waiting.set()
            with pytest.raises(ClientRequestError):
                await new.request(send, "elicitation/create", {}, timeout=0.5)
        async with anyio.create_task_group() as tg:
            tg.start_soon(wait)
            await waiting.wait()
            assert not new.resolve({"jsonrpc": "2.0", "id": asked, "result": {}})
    anyio.run(run)
