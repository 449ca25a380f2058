"""The control session: toolhost's side of the Claude CLI's stdin/stdout control protocol.

One ``ControlSession`` runs over a pair of byte streams (the CLI's stdout and stdin, or
in-memory streams in tests). It routes the CLI's ``mcp_message`` requests to the named
``McpServer``, answers ``can_use_tool`` with the permission function, hands conversation
messages to ``on_message``, and sends requests of its own (``initialize``, ``interrupt``,
``mcp_message`` notifications) matched to their answers by ``request_id``.

Every incoming control request runs in its own task, so a slow tool never holds up another
request, and gets exactly one answer -- except one the CLI withdrew with
``control_cancel_request``, which (like the official SDK) gets none: the CLI has stopped
waiting for it. A tools/call cancelled by ``notifications/cancelled`` is still answered, with
JSON-RPC error -32800 inside its ``mcp_response``; the CLI ignores that late answer.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel

from toolhost.compile.tool import CompiledTool
from toolhost.errors import FrameTooLongError, ProtocolError
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import McpServer, Notify, wire
from toolhost.protocol.framing import (
    DEFAULT_MAX_LINE_BYTES,
    LineReader,
    LineTooLong,
    LineWriter,
    request_id_in,
)
from toolhost.protocol.handlers import (
    ACK,
    ControlRequestError,
    MessageFn,
    PermissionFn,
    answer_can_use_tool,
    answer_mcp_message,
)
from toolhost.protocol.tasks import RequestTasks

__all__ = ["ControlSession"]

log = logging.getLogger("toolhost.protocol")


class _Waiter:
    __slots__ = ("event", "payload")

    def __init__(self) -> None:
        self.event = anyio.Event()
        self.payload: Mapping[str, Any] | BaseException | None = None

    def resolve(self, payload: Mapping[str, Any] | BaseException) -> None:
        if self.payload is None:
            self.payload = payload
            self.event.set()


class ControlSession:
    """Serve the CLI's control requests and send ours, over any pair of anyio byte streams.

    Start it with ``await session.run()`` (in a task group: it returns at end of input,
    after the requests in flight are answered). The streams belong to the caller.
    """

    def __init__(self, receive: anyio.abc.ByteReceiveStream,
                 send: anyio.abc.ByteSendStream, *, servers: Mapping[str, McpServer],
                 permission: PermissionFn | None = None, on_message: MessageFn | None = None,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self._reader = LineReader(receive, max_line_bytes)
        self._limits = limits.replace(max_message_bytes=max_line_bytes)
        self._writer = LineWriter(send)
        self._servers: dict[str, McpServer] = dict(servers)
        self.permission = permission
        self.on_message = on_message
        self._tg: anyio.abc.TaskGroup | None = None
        self._tasks = RequestTasks()  # incoming requests being served, by request_id
        self._read_scope: anyio.CancelScope | None = None  # of whichever task reads now
        self._eof = anyio.Event()
        self._pending: dict[str, _Waiter | None] = {}  # our request_id -> waiter (None: ignore)
        self._mcp_pending: dict[tuple[str, Any], _Waiter] = {}  # our JSON-RPC requests
        self._ids = itertools.count(1)
        self._id_salt = os.urandom(4).hex()
        self._notifiers: dict[str, Notify] = {}
        self._done = False

    # -- servers ----------------------------------------------------------------------

    @property
    def servers(self) -> Mapping[str, McpServer]:
        return self._servers

    def replace_servers(self, servers: Mapping[str, McpServer]) -> None:
        """Swap the whole server map (calls in flight finish on the servers they started)."""
        self._servers = dict(servers)

    async def set_tools(self, server_name: str, tools: list[CompiledTool]) -> bool:
        """Swap one server's tools; if tools/list changed, tell the CLI (it re-lists)."""
        changed = self._servers[server_name].set_tools(tools)
        if changed:
            await self.notify_tools_changed(server_name)
        return changed

    # -- reading ----------------------------------------------------------------------

    async def run(self) -> None:
        """Read and serve until the CLI closes its output; then wait for calls in flight.

        Cancelling ``run`` (or calling ``aclose``) cancels the calls in flight instead.
        """
        tasks = self._tasks
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tasks.bind(tg)
                tasks.start(self._read)
                await self._eof.wait()
                self._fail_pending("the CLI closed its output")
                await tasks.wait_all()
        finally:
            self._done = True
            self._tg = None
            self._fail_pending("the control session stopped")
            tasks.cancel_all()
            if self._read_scope is not None:
                self._read_scope.cancel()
            with anyio.CancelScope(shield=True):
                await tasks.wait_all()

    async def _read(self) -> None:
        # Leader/follower: when a control request is the last line read so far, this task
        # hands reading over to a new task and serves the request itself, so a quick
        # tool's answer goes out in the same event-loop turn as its request came in
        # (about a quarter of a sequential round trip saved). Requests with more lines
        # already behind them get tasks of their own, and reading goes on at once.
        request: tuple[str, Any] | None = None
        spawned = False
        self._read_scope = scope = self._tasks.new_scope()
        if self._tasks.closing:
            scope.cancel()
        with scope:
            try:
                while True:
                    request = await self._next_request()
                    if request is None or not self._reader.buffered:
                        break
                    self._tasks.spawn(request[0], self._serve, request[1])
                    spawned = True
            except Exception:  # a bug here must not leave run() waiting forever
                log.exception("control session: reading failed")
                request = None
        if request is None or self._tasks.closing:
            self._eof.set()
            return
        if spawned:
            # Let the requests read before this one start first (each registers its
            # tools/call before its first pause), so a notifications/cancelled served
            # here can never overtake the call it names.
            await anyio.lowlevel.checkpoint()
            if self._tasks.closing:
                self._eof.set()
                return
        self._tasks.start(self._read)
        await self._tasks.serve(request[0], self._serve, request[1])

    async def _next_request(self) -> tuple[str, Any] | None:
        """Handle lines until a control request comes; return it (None at end of input)."""
        reader = self._reader
        while True:
            try:
                line = await reader.receive_line()
            except anyio.EndOfStream:
                return None
            except FrameTooLongError as exc:
                log.warning("control session: %s", exc)
                if isinstance(exc, LineTooLong):
                    await self._refuse(exc.head, str(exc))
                continue
            if not line.strip():
                continue
            try:
                message = wire.decode(line, self._limits)
            except wire.WireError as exc:
                log.warning("control session: skipped a line (%s): %s", exc.message,
                            cut(repr(line[:300]), 200))
                await self._refuse(line[:4096], exc.message)
                continue
            if not isinstance(message, dict):
                log.warning("control session: skipped a JSON line that is not an object: %.200r",
                            line)
                continue
            kind = message.get("type")
            if kind == "control_request":
                request_id = message.get("request_id")
                if isinstance(request_id, str) and request_id:
                    return request_id, message.get("request")
                log.warning("control session: skipped a control_request without a "
                            "request_id: %.200r", message)
            elif kind == "control_response":
                self._on_response(message.get("response"))
            elif kind == "control_cancel_request":
                self._tasks.cancel(str(message.get("request_id")))
            elif self.on_message is not None:
                try:
                    await self.on_message(message)
                except Exception:  # a renderer's bug never stops the session
                    log.exception("on_message failed for a %r message", kind)

    async def _refuse(self, head: bytes, why: str) -> None:
        # A control request we could not read still gets its one answer (an error), so
        # the CLI never waits for it; other lines are only logged.
        request_id = request_id_in(head)
        if request_id is not None:
            await self._write({"type": "control_response",
                               "response": {"subtype": "error", "request_id": request_id,
                                            "error": f"toolhost could not read this control "
                                                     f"request: {why}"}})

    async def _serve(self, request_id: str, request: Any) -> None:
        # Runs inside the request's cancel scope (RequestTasks): a control_cancel_request
        # stops it before the answer is written, so a withdrawn request gets none.
        await self._write(await self._answer(request_id, request))

    async def _answer(self, request_id: str, request: Any) -> dict[str, Any]:
        try:
            if not isinstance(request, Mapping):
                raise ControlRequestError("control_request without a 'request' object")
            subtype = request.get("subtype")
            if subtype == "mcp_message":
                response = await self._mcp_message(request)
            elif subtype == "can_use_tool":
                response = await answer_can_use_tool(request, self.permission)
            else:
                raise ControlRequestError("unsupported control request subtype: "
                                          f"{cut(repr(subtype), 100)}")
        except Exception as exc:
            if not isinstance(exc, ControlRequestError):
                log_failure(log, f"control request {cut(request_id, 100)}", exc)
            return {"type": "control_response",
                    "response": {"subtype": "error", "request_id": request_id,
                                 "error": cut(str(exc)) or type(exc).__name__}}
        return {"type": "control_response",
                "response": {"subtype": "success", "request_id": request_id,
                             "response": response}}

    async def _mcp_message(self, request: Mapping[str, Any]) -> dict[str, Any]:
        message = request.get("message")
        if (isinstance(message, Mapping) and "method" not in message
                and ("result" in message or "error" in message)):
            # The CLI delivering the answer to a JSON-RPC request we sent it.
            waiter = self._mcp_pending.pop((str(request.get("server_name")),
                                            message.get("id")), None)
            if waiter is not None:
                waiter.resolve(message)
            return ACK
        return await answer_mcp_message(request, self._servers, self._notifier, self)

    def _on_response(self, response: Any) -> None:
        if not isinstance(response, Mapping):
            log.warning("control session: control_response without a 'response' object")
            return
        request_id = response.get("request_id")
        if not isinstance(request_id, str) or request_id not in self._pending:
            log.debug("control session: answer to unknown request %r", request_id)
            return
        waiter = self._pending.pop(request_id)
        if waiter is None:
            if response.get("subtype") == "error":
                log.warning("the CLI refused a notification: %s", response.get("error"))
            return
        if response.get("subtype") == "error":
            waiter.resolve(ProtocolError(str(response.get("error") or "unknown error")))
        else:
            waiter.resolve(response)

    def _fail_pending(self, why: str) -> None:
        pending = [w for w in self._pending.values() if w is not None]
        pending += self._mcp_pending.values()
        self._pending.clear()
        self._mcp_pending.clear()
        for waiter in pending:
            waiter.resolve(ProtocolError(f"no answer: {why}"))

    # -- writing ----------------------------------------------------------------------

    async def _write(self, obj: Any) -> None:
        try:
            await self._writer.send(obj)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            log.debug("control session: dropped an outgoing line, the CLI is gone (%r)", exc)

    def _new_id(self) -> str:
        return f"req_{next(self._ids)}_{self._id_salt}"

    async def request(self, subtype: str, **fields: Any) -> dict[str, Any]:
        """Send a control request and return the ``response`` of its success answer.

        Raises ``ProtocolError`` if the CLI answers with an error or the session ends
        first. Wrap it in ``anyio.fail_after`` for a deadline.
        """
        if self._done:
            raise ProtocolError(f"cannot send {subtype!r}: the control session has ended")
        request_id = self._new_id()
        waiter = _Waiter()
        self._pending[request_id] = waiter
        try:
            await self._writer.send({"type": "control_request", "request_id": request_id,
                                     "request": {"subtype": subtype, **fields}})
            await waiter.event.wait()
        finally:
            self._pending.pop(request_id, None)
        payload = waiter.payload
        if isinstance(payload, BaseException):
            raise ProtocolError(f"control request {subtype!r} failed: {payload}")
        assert payload is not None
        answer = payload.get("response")
        return dict(answer) if isinstance(answer, Mapping) else {}

    async def _request_nowait(self, subtype: str, **fields: Any) -> None:
        # Fire and forget: the CLI's ack is consumed (and an error logged) when it comes.
        request_id = self._new_id()
        self._pending[request_id] = None
        await self._write({"type": "control_request", "request_id": request_id,
                           "request": {"subtype": subtype, **fields}})

    async def initialize(self, **fields: Any) -> dict[str, Any]:
        """Send ``initialize`` (``hooks`` defaults to None; pass ``sdkMcpServers`` etc.)."""
        fields.setdefault("hooks", None)
        return await self.request("initialize", **fields)

    async def interrupt(self) -> dict[str, Any]:
        """Ask the CLI to stop the current turn (it cancels running tool calls)."""
        return await self.request("interrupt")

    async def send_message(self, obj: Mapping[str, Any]) -> None:
        """Write one conversation message (e.g. a user turn) to the CLI."""
        await self._writer.send(obj)

    async def notify_tools_changed(self, server_name: str) -> None:
        """Send ``notifications/tools/list_changed`` for a server; the CLI re-lists."""
        await self.request("mcp_message", server_name=server_name,
                           message={"jsonrpc": "2.0",
                                    "method": "notifications/tools/list_changed"})

    async def mcp_request(self, server_name: str, method: str,
                          params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Send a JSON-RPC request to the CLI as the MCP server ``server_name``.

        The CLI acks the control request and later sends the JSON-RPC response back as an
        ``mcp_message`` of its own; this returns that response message.
        """
        jsonrpc_id = f"toolhost-{next(self._ids)}"
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": jsonrpc_id, "method": method}
        if params is not None:
            message["params"] = dict(params)
        waiter = _Waiter()
        key = (server_name, jsonrpc_id)
        self._mcp_pending[key] = waiter
        try:
            await self.request("mcp_message", server_name=server_name, message=message)
            await waiter.event.wait()
        finally:
            self._mcp_pending.pop(key, None)
        if isinstance(waiter.payload, BaseException):
            raise ProtocolError(f"MCP request {method!r} failed: {waiter.payload}")
        assert waiter.payload is not None
        return dict(waiter.payload)

    def _notifier(self, server_name: str) -> Notify:
        notify = self._notifiers.get(server_name)
        if notify is None:
            async def notify(message: dict[str, Any]) -> None:
                await self._request_nowait("mcp_message", server_name=server_name,
                                           message=message)
            self._notifiers[server_name] = notify
        return notify

    # -- closing ----------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """Incoming control requests still being served."""
        return len(self._tasks.scopes)

    async def aclose(self) -> None:
        """Cancel every call in flight and stop reading; pending requests fail."""
        self._done = True
        self._tasks.cancel_all()
        if self._read_scope is not None:
            self._read_scope.cancel()
        if self._tg is not None:
            self._tg.cancel_scope.cancel()
        self._fail_pending("the control session was closed")
