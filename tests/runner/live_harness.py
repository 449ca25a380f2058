"""A ``LiveHost`` wired to a control session over in-memory byte streams, for tests that
drive what ``toolhost run`` does while a session is live (reloads, upstream changes)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.abc
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from toolhost.host import Host
from toolhost.permissions import FixedAsker, PermissionGate
from toolhost.protocol import ControlSession
from toolhost.runner.gate import make_gate
from toolhost.runner.live import LiveHost


class _Send(anyio.abc.ByteSendStream):
    def __init__(self, stream: MemoryObjectSendStream[bytes]) -> None:
        self.stream = stream

    async def send(self, item: bytes) -> None:
        await self.stream.send(item)

    async def aclose(self) -> None:
        await self.stream.aclose()


class _Receive(anyio.abc.ByteReceiveStream):
    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self.stream = stream

    async def receive(self, max_bytes: int = 65536) -> bytes:
        return await self.stream.receive()

    async def aclose(self) -> None:
        await self.stream.aclose()


def _pipe() -> tuple[_Send, _Receive]:
    send, receive = anyio.create_memory_object_stream[bytes](100)
    return _Send(send), _Receive(receive)


@dataclass
class Wired:
    """The session, its gate and the ``LiveHost``, with the CLI's ends of the streams."""

    control: ControlSession
    gate: PermissionGate
    live: LiveHost
    cli_in: _Receive
    cli_out: _Send

    async def acking_cli(self, sent: list[dict[str, Any]],
                         on_each: Callable[[], None] = lambda: None) -> None:
        """The CLI's side: acks every control request the session sends, recording it."""
        async for chunk in self.cli_in.stream:
            for line in chunk.splitlines():
                message = json.loads(line)
                sent.append(message)
                on_each()
                await self.cli_out.send(json.dumps({"type": "control_response", "response": {
                    "subtype": "success", "request_id": message["request_id"]}}).encode()
                    + b"\n")


@asynccontextmanager
async def wired(host: Host, *, say: Callable[[str], None] | None = None
                ) -> AsyncIterator[Wired]:
    """``host`` live in a session whose gate denies what it would ask; all of it (streams,
    host, gate) closed on the way out."""
    cli_out, session_in = _pipe()
    session_out, cli_in = _pipe()
    control = ControlSession(session_in, session_out, servers=host.servers)
    gate = make_gate(host, asker=FixedAsker("deny", answered_by="test"))
    live = LiveHost(host, control, gate, **({"say": say} if say is not None else {}))
    try:
        yield Wired(control, gate, live, cli_in, cli_out)
    finally:
        for stream in (cli_out, session_in, session_out, cli_in):
            await stream.aclose()
        await host.aclose()
        gate.close()
