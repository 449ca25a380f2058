"""The control session: toolhost's side of the Claude CLI's stdin/stdout control protocol.

One ``ControlSession`` runs over a pair of byte streams (the CLI's stdout and stdin, or
in-memory streams in tests). It routes the CLI's ``mcp_message`` requests to the named
``McpServer``, answers ``can_use_tool`` with the permission function, hands conversation
messages to ``on_message``, and sends requests of its own (``initialize``, ``interrupt``,
``mcp_message`` notifications) matched to their answers by ``request_id``.

The session is three layers, each in a module of its own, flowing one way: what is sent
(``toolhost.protocol.sending``: lines, our requests), what is read (``toolhost.protocol.
reading``: each line taken for what it is, a ``PipeLines`` line the moment it arrives), and
here, what is served: a task per request, its one answer, the run and its end.

Every incoming control request runs in its own task, so a slow tool never holds up another
request, and gets exactly one answer -- except one the CLI withdrew with
``control_cancel_request``, which (like the official SDK) gets none: the CLI has stopped
waiting for it. When the host stops (a signal), ``stop`` answers every request still being
served at once, before the CLI's stdin closes (``toolhost.protocol.open_requests``). A
tools/call cancelled by ``notifications/cancelled`` is still answered, with JSON-RPC
error -32800 inside its ``mcp_response``; the CLI ignores that late answer.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

import anyio
import anyio.abc
import anyio.lowlevel

from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import McpServer
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.tools_call import CALL_START, CallStart
from toolhost.protocol.framing import DEFAULT_MAX_LINE_BYTES, LineReader, encode_line
from toolhost.protocol.handlers import (
    ACK,
    ControlRequestError,
    MessageFn,
    PermissionFn,
    answer_can_use_tool,
    answer_mcp_message,
)
from toolhost.protocol.open_requests import OpenRequests, StoppedRequest, permission_tool
from toolhost.protocol.open_requests import succeeded as _succeeded
from toolhost.protocol.pipes import PipeLines
from toolhost.protocol.reading import RequestLines
from toolhost.protocol.refusals import failed as _failed

__all__ = ["ControlSession"]

log = logging.getLogger("toolhost.protocol")


class _CallCancel:
    """A request's own cancel scope, offered to the MCP core for a tools/call: called by a
    ``notifications/cancelled``, and noted, so that the call is still answered (-32800)."""

    __slots__ = ("called", "scope")

    def __init__(self, scope: anyio.CancelScope) -> None:
        self.scope = scope
        self.called = False

    def cancel(self) -> None:
        self.called = True
        self.scope.cancel()


class ControlSession(RequestLines):
    """Serve the CLI's control requests and send ours, over any pair of anyio byte streams.

    Start it with ``await session.run()`` (in a task group: it returns at end of input,
    once the requests in flight are cancelled). The streams belong to the caller.
    """

    def __init__(self, receive: anyio.abc.ByteReceiveStream | PipeLines,
                 send: anyio.abc.ByteSendStream, *, servers: Mapping[str, McpServer],
                 permission: PermissionFn | None = None, on_message: MessageFn | None = None,
                 max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                 limits: Limits = DEFAULT_LIMITS) -> None:
        self._reader: LineReader | PipeLines
        if isinstance(receive, PipeLines):
            # A pipe read by its own protocol: permission requests decided without a pause
            # are answered as they arrive, other requests get their tasks at once (``_take_line``).
            self._reader = receive
            receive.inline = self._take_line
            max_line_bytes = receive.max_line_bytes
        else:
            self._reader = LineReader(receive, max_line_bytes)
        self._limits = limits.replace(max_message_bytes=max_line_bytes)
        super().__init__(send)  # the writer, the outbox and the request tasks
        self._servers: dict[str, McpServer] = dict(servers)
        self.permission = permission
        self.on_message = on_message
        self._tg: anyio.abc.TaskGroup | None = None
        self._read_scope: anyio.CancelScope | None = None  # of whichever task reads now
        self._eof = anyio.Event()
        self._rpc_calls: dict[tuple[str, Any], object] = {}  # tools/call in flight (handlers)
        # the requests being served: each answered at once when the host stops (``stop``)
        self._open = OpenRequests(self._writer.write_now, self._send_later)

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
        """Read and serve until the CLI closes its output; then cancel the calls in flight
        (their answers could not be read), as cancelling ``run`` or ``aclose`` does."""
        tasks = self._tasks
        try:
            async with anyio.create_task_group() as tg:
                self._tg = tg
                tasks.bind(tg)
                tasks.start(self._read)
                await self._eof.wait()
                self._outbox.fail_all("the CLI closed its output")
                # Nobody reads an answer any more: calls in flight are cancelled (a command
                # tool's processes stopped), never waited for (one with no timeout would
                # hold the session for ever, and go on acting for a caller that is gone).
                tasks.cancel_all()
                await tasks.wait_all()
        finally:
            self._outbox.closed = True
            self._tg = None
            self._outbox.fail_all("the control session stopped")
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
        request: tuple[str, Any, int] | None = None
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
                    self._tasks.spawn(request[0], self._serve, request[1], request[2])
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
            # here can never overtake the call it names. (A turn of the loop or two: the
            # requests of a read begin one by one in one task, and those behind one that
            # waits in tasks of their own a turn later: toolhost.protocol.read_batch.)
            read = self._tasks.queued_ever
            await anyio.lowlevel.checkpoint()
            while not self._tasks.begun(read) and not self._tasks.closing:
                await anyio.lowlevel.checkpoint()
            if self._tasks.closing:
                self._eof.set()
                return
        self._tasks.start(self._read)
        await self._tasks.serve(request[0], self._serve, request[1], request[2])

    async def _serve(self, request_id: str, request: Any) -> None:
        # Runs inside the request's cancel scope (RequestTasks): a control_cancel_request
        # stops it before the answer is written, so a withdrawn request gets none. The same
        # scope is the one a notifications/cancelled cancels (the MCP core opens none of its
        # own, see McpServer.handle): that call is still answered, with -32800.
        scope = self._tasks.scopes.get(request_id)
        cancel = _CallCancel(scope) if scope is not None else None
        opened = self._open
        if opened.stopping is not None and permission_tool(request) is None:
            # read after the host began to stop: answered as the stop answers, never started
            opened.answer(request_id, request)
            opened.closed(request_id)
            return
        start = CallStart()  # marked by the MCP core as the call's tool starts
        opened.opened(request_id, request, start)
        token = CALL_START.set(start)
        try:
            answer = await self._answer(request_id, request, cancel)
        except anyio.get_cancelled_exc_class():
            if opened.answered(request_id):
                pass  # by the stop, before this cancellation landed: its one answer is out
            elif cancel is not None and cancel.called \
                    and not self._tasks.unanswered(cancel.scope):
                self._answer_cancelled(request_id, request)
            elif opened.stopping is not None \
                    and not (scope is not None and self._tasks.withdrawn(scope)):
                opened.answer(request_id, request, start)  # came after the stop began
            raise
        finally:
            CALL_START.reset(token)
            answered = opened.closed(request_id)
        if answered:  # by the stop: this request has had its one answer
            return
        await self._write(answer)

    def stop(self, why: str, deny: Callable[[str], str] | None = None, *,
             on_stopped: Callable[[StoppedRequest], None] | None = None
             ) -> list[StoppedRequest]:
        """The host is stopping: answer every request being served now, before the CLI's
        stdin is closed (the CLI is never left without an answer): an open permission
        question with a deny, ``deny(tool_name)``; a tools/call with an error result saying
        it was cancelled before it ended, and ``why``. Their own answers, if any come, are
        dropped; a request read from now on gets the same answer without being served, and
        so do the requests the CLI wrote before the stop and nobody has taken yet (read, or
        in the pipe now). See ``toolhost.protocol.open_requests``."""
        stopped = self._open.stop(why, deny, on_stopped=on_stopped)
        try:
            waiting = self._take_waiting_requests()
        except Exception:  # the open requests have their answers: a bug here stops nothing
            log.exception("control session: reading the requests not yet taken failed")
            return stopped
        for request_id, request in waiting:
            if (answered := self._open.answer(request_id, request)) is not None:
                stopped.append(answered)
        return stopped

    def _answer_cancelled(self, request_id: str, request: Mapping[str, Any]) -> None:
        # Written without a pause (this task is being cancelled: it cannot await), or by a
        # task of its own when the CLI is slow to read.
        message = request.get("message")
        jsonrpc_id = message.get("id") if isinstance(message, Mapping) else None
        data = encode_line(_succeeded(request_id, {
            "mcp_response": rpc.cancelled_response(jsonrpc_id)}))
        if not self._writer.write_now(data):
            self._send_later(data)

    async def _answer(self, request_id: str, request: Any,
                      cancel: _CallCancel | None = None) -> dict[str, Any]:
        try:
            if type(request) is not dict and not isinstance(request, Mapping):
                raise ControlRequestError("control_request without a 'request' object")
            subtype = request.get("subtype")
            if subtype == "mcp_message":
                response = await self._mcp_message(request, cancel)
            elif subtype == "can_use_tool":
                response = await answer_can_use_tool(request, self.permission)
            else:
                raise ControlRequestError("unsupported control request subtype: "
                                          f"{cut(repr(subtype), 100)}")
        except Exception as exc:
            return _failed(request_id, exc)
        return _succeeded(request_id, response)

    async def _mcp_message(self, request: Mapping[str, Any],
                           cancel: _CallCancel | None = None) -> dict[str, Any]:
        message = request.get("message")
        if ((type(message) is dict or isinstance(message, Mapping)) and "method" not in message
                and ("result" in message or "error" in message)):
            # The CLI delivering the answer to a JSON-RPC request we sent it.
            self._outbox.resolve_mcp(str(request.get("server_name")), message)
            return ACK
        return await answer_mcp_message(request, self._servers, self._outbox.notifier, self,
                                        cancel, self._rpc_calls)

    # -- closing ----------------------------------------------------------------------

    @property
    def in_flight(self) -> int:
        """Incoming control requests still being served."""
        return len(self._tasks.scopes)

    async def aclose(self) -> None:
        """Cancel every call in flight and stop reading; pending requests fail."""
        self._outbox.closed = True
        self._tasks.cancel_all()
        if self._read_scope is not None:
            self._read_scope.cancel()
        if self._tg is not None:
            self._tg.cancel_scope.cancel()
        self._outbox.fail_all("the control session was closed")
