"""Byte streams and a fake CLI peer for ControlSession tests.

``running_session`` serves over in-memory streams, or (``TRANSPORT = "pipes"``, set per test
by ``tests/protocol/conftest.py``) over real OS pipes as ``toolhost run`` does: the session
reads through ``PipeLines`` (lines taken as they arrive) and writes through an asyncio
pipe writer (answers written at once).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.abc
import jsonschema
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from toolhost.backends.base import CallContext, Invoke
from toolhost.compile.tool import CompiledTool
from toolhost.mcp import McpServer
from toolhost.protocol import DEFAULT_MAX_LINE_BYTES, ControlSession, MessageFn, PermissionFn
from toolhost.protocol.pipes import PipeLines
from toolhost.results import ToolResult

NAME_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"name": {"type": "string"}},
                               "required": ["name"]}


async def greet(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.text(f"Hello, {arguments['name']}!")


def make_tool(name: str = "greet", invoke: Invoke = greet, *, server: str = "demo",
              schema: Mapping[str, Any] | None = None, description: str | None = None,
              **extra: Any) -> CompiledTool:
    schema = dict(schema if schema is not None else NAME_SCHEMA)
    return CompiledTool(name=name, server=server, description=description or f"The {name} tool",
                        input_schema=schema, validator=jsonschema.Draft202012Validator(schema),
                        invoke=invoke, **extra)


class ByteSender(anyio.abc.ByteSendStream):
    def __init__(self, stream: MemoryObjectSendStream[bytes]) -> None:
        self._stream = stream

    async def send(self, item: bytes) -> None:
        await self._stream.send(item)

    async def aclose(self) -> None:
        await self._stream.aclose()


class ByteReceiver(anyio.abc.ByteReceiveStream):
    def __init__(self, stream: MemoryObjectReceiveStream[bytes]) -> None:
        self._stream = stream
        self._rest = b""

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = self._rest or await self._stream.receive()
        data, self._rest = data[:max_bytes], data[max_bytes:]
        return data

    async def aclose(self) -> None:
        await self._stream.aclose()


def byte_pipe() -> tuple[ByteSender, ByteReceiver]:
    send, receive = anyio.create_memory_object_stream[bytes](10_000)
    return ByteSender(send), ByteReceiver(receive)


TRANSPORT = "memory"  # or "pipes": see the module text


class PipeSender(anyio.abc.ByteSendStream):
    """The write end of an OS pipe, as anyio's subprocess stdin is (an asyncio StreamWriter
    under ``_stream``, which ``LineWriter`` writes to directly)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._stream = writer

    async def send(self, item: bytes) -> None:
        if self._stream.is_closing():
            raise anyio.ClosedResourceError
        self._stream.write(item)
        await self._stream.drain()

    async def aclose(self) -> None:
        if not self._stream.is_closing():
            self._stream.close()


class PipeReceiver(anyio.abc.ByteReceiveStream):
    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._stream = reader

    async def receive(self, max_bytes: int = 65536) -> bytes:
        data = await self._stream.read(max_bytes)
        if not data:
            raise anyio.EndOfStream
        return data

    async def aclose(self) -> None:
        return None


async def os_pipe_writer() -> tuple[int, PipeSender]:
    """An OS pipe: its read end (a descriptor) and a sender on its write end."""
    read_fd, write_fd = os.pipe()
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", buffering=0))
    return read_fd, PipeSender(asyncio.StreamWriter(transport, protocol, None, loop))


async def os_pipe_reader(read_fd: int) -> PipeReceiver:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader),
                                 os.fdopen(read_fd, "rb", buffering=0))
    return PipeReceiver(reader)


class FakeCLI:
    """The CLI's side: writes lines into the session, collects every line it writes back."""

    def __init__(self, to_session: anyio.abc.ByteSendStream,
                 from_session: anyio.abc.ByteReceiveStream) -> None:
        self._out = to_session
        self._in = from_session
        self.lines: list[dict[str, Any]] = []
        self._answers: dict[str, list[dict[str, Any]]] = {}  # kept as lines come (cheap)
        self._arrived = anyio.Event()
        self._reading = anyio.Event()
        self._reading.set()

    def hold(self) -> None:
        """Stop reading what the session writes (a CLI that is stuck), until ``release``."""
        self._reading = anyio.Event()

    def release(self) -> None:
        self._reading.set()

    async def send(self, obj: Mapping[str, Any]) -> None:
        await self._out.send((json.dumps(obj) + "\n").encode())

    async def send_raw(self, data: bytes) -> None:
        await self._out.send(data)

    async def close(self) -> None:
        await self._out.aclose()

    async def request(self, request_id: str, request: Mapping[str, Any]) -> None:
        await self.send({"type": "control_request", "request_id": request_id,
                         "request": dict(request)})

    async def mcp(self, request_id: str, message: Mapping[str, Any],
                  server: str = "demo") -> None:
        await self.request(request_id, {"subtype": "mcp_message", "server_name": server,
                                        "message": dict(message)})

    async def collect(self) -> None:
        buf = b""
        while True:
            await self._reading.wait()
            try:
                chunk = await self._in.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                await self._in.aclose()
                return
            buf += chunk
            *complete, buf = buf.split(b"\n")
            for line in complete:
                message = json.loads(line)
                self.lines.append(message)
                if message.get("type") == "control_response":
                    response = message["response"]
                    self._answers.setdefault(response["request_id"], []).append(response)
            self._arrived.set()
            self._arrived = anyio.Event()

    def answers(self) -> dict[str, list[dict[str, Any]]]:
        """control_responses by request_id (a list, to catch double answers); kept up to
        date as lines arrive (a wait on it costs no rescan of every line: 3,000 answers
        waited for one by one took 10 s)."""
        return self._answers

    def answer(self, request_id: str) -> dict[str, Any]:
        (only,) = self.answers()[request_id]
        return only

    def requests(self, subtype: str | None = None) -> list[dict[str, Any]]:
        return [line for line in self.lines if line.get("type") == "control_request"
                and (subtype is None or line["request"]["subtype"] == subtype)]

    async def wait_for(self, predicate: Any, timeout: float = 5) -> None:
        with anyio.fail_after(timeout):
            while not predicate():
                await self._arrived.wait()


@asynccontextmanager
async def running_session(servers: Mapping[str, McpServer] | None = None, *,
                          permission: PermissionFn | None = None,
                          on_message: MessageFn | None = None,
                          max_line_bytes: int | None = None
                          ) -> AsyncIterator[tuple[ControlSession, FakeCLI]]:
    """A session served in the background; on exit the CLI closes its output and the
    session must drain and stop by itself."""
    session_in: anyio.abc.ByteReceiveStream | PipeLines
    cli_out: anyio.abc.ByteSendStream
    session_out: anyio.abc.ByteSendStream
    cli_in: anyio.abc.ByteReceiveStream
    kwargs: dict[str, Any] = {}
    if TRANSPORT == "pipes":
        read_fd, cli_out = await os_pipe_writer()
        session_in = await PipeLines.open(read_fd, max_line_bytes or DEFAULT_MAX_LINE_BYTES)
        read_fd, session_out = await os_pipe_writer()
        cli_in = await os_pipe_reader(read_fd)
    else:
        cli_out, session_in = byte_pipe()
        session_out, cli_in = byte_pipe()
        if max_line_bytes is not None:
            kwargs["max_line_bytes"] = max_line_bytes
    if servers is None:
        servers = {"demo": McpServer("demo", "1.0.0", [make_tool()])}
    session = ControlSession(session_in, session_out, servers=servers, permission=permission,
                             on_message=on_message, **kwargs)
    cli = FakeCLI(cli_out, cli_in)
    stopped = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(cli.collect)

        async def serve() -> None:
            try:
                await session.run()
            finally:
                await session_out.aclose()
                if isinstance(session_in, PipeLines):
                    session_in.aclose()
                else:
                    await session_in.aclose()
                stopped.set()

        tg.start_soon(serve)
        try:
            yield session, cli
        finally:
            await cli.close()
            with anyio.fail_after(10):
                await stopped.wait()
