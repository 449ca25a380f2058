"""Over stdio a request's id is free again as soon as its answer can be read: a client that
sends its next request with the same id on reading the answer is served, never told "id
already in use" (in process, with a writer that hands the client the answer and lets it
reuse the id while the write is still under way)."""

from __future__ import annotations

import io
import json
import os
import threading
import time
from collections.abc import Hashable, Mapping
from typing import Any

import anyio
import pytest

from toolhost.serve.stdio import StdioServer

pytestmark = pytest.mark.anyio


class Echo:
    async def handle(self, message: Mapping[str, Any], notify: Any = None,
                     peer: Hashable = None) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"n": message["params"]["n"]}}


class EagerClient(io.RawIOBase):
    """The server's stdout: on each answer, the client at once sends its next request with
    the same id, and the write returns only once the server has had time to read it."""

    def __init__(self, requests: int, to_server: int) -> None:
        self.answers: list[dict[str, Any]] = []
        self._left = requests
        self._to_server = to_server
        self._buffer = b""
        self.done = threading.Event()

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self._buffer += bytes(data)
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            self.answers.append(json.loads(line))
            self._left -= 1
            if self._left > 0:
                os.write(self._to_server, request(self._left))
                time.sleep(0.2)  # the server reads it while this answer is still "written"
            else:
                os.close(self._to_server)
                self.done.set()
        return len(data)


def request(n: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": "same", "method": "x",
                       "params": {"n": n}}).encode() + b"\n"


async def test_an_id_is_free_once_its_answer_is_written() -> None:
    read_end, write_end = os.pipe()
    client = EagerClient(5, write_end)
    with os.fdopen(read_end, "rb") as reader:
        server = StdioServer(Echo(), reader, client)  # type: ignore[arg-type]
        os.write(write_end, request(5))
        with anyio.fail_after(30):
            await server.run()
    assert [a.get("result") for a in client.answers] == [{"n": n} for n in (5, 4, 3, 2, 1)], \
        client.answers


class SlowInitialize:
    """Answers ``initialize`` only once it has seen the client's cancel of it."""

    def __init__(self) -> None:
        self.cancel_seen = anyio.Event()

    async def handle(self, message: Mapping[str, Any], notify: Any = None,
                     peer: Hashable = None) -> dict[str, Any] | None:
        if message.get("method") == "notifications/cancelled":
            self.cancel_seen.set()
            return None
        await self.cancel_seen.wait()
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "x"}}


class Lines(io.RawIOBase):
    def __init__(self) -> None:
        self.data = b""

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.data += bytes(data)
        return len(data)


@pytest.mark.parametrize("request_id", [0, 1, "init"])  # (1 == True: no confusion)
async def test_a_cancel_of_the_initialize_is_ignored_and_it_is_answered(
        request_id: Any) -> None:
    """The spec: a client MUST NOT cancel its initialize; cancelled, it was never answered
    and the client waited on a connection that could not start."""
    read_end, write_end = os.pipe()
    out = Lines()
    with os.fdopen(read_end, "rb") as reader:
        server = StdioServer(SlowInitialize(), reader, out)  # type: ignore[arg-type]
        shown = json.dumps(request_id)
        os.write(write_end, (
            f'{{"jsonrpc":"2.0","id":{shown},"method":"initialize","params":{{}}}}\n'
            f'{{"jsonrpc":"2.0","method":"notifications/cancelled",'
            f'"params":{{"requestId":{shown}}}}}\n').encode())
        os.close(write_end)
        with anyio.fail_after(30):
            await server.run()
    assert [json.loads(line) for line in out.data.splitlines()] == [
        {"jsonrpc": "2.0", "id": request_id, "result": {"protocolVersion": "x"}}]
