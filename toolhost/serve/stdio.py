"""MCP over stdio: newline-delimited JSON-RPC on a pair of byte streams.

Every request runs in its own task, so answers go out in any order (when the client closes
our input, running calls get a few seconds to answer before they are cancelled); a
``notifications/cancelled`` cancels the task of the request it names (and no answer is sent
for it, as MCP asks). Notifications a running call makes (progress) and messages the server
sends on its own (``notifications/tools/list_changed`` after a reload) share one writer lock,
so lines never interleave. Nothing but protocol ever goes to the output stream.

Lines are written by a daemon thread of the writer's own (``LineWriter``): a client that
stops reading our output blocks that thread, never the event loop, and when the client then
closes our input the server still ends after the grace (the answers nobody reads are given
up), instead of waiting forever for a write that cannot finish. While the bytes it has not
read are over ``--max-in-flight-bytes``, no further request is read (memory stays bounded).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import IO, Any, Literal

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.abc import TaskGroup

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp import wire
from toolhost.mcp.client_requests import ClientChannel, Pending, client_channel
from toolhost.serve.base import (
    Handler,
    cancelled_id,
    error_response,
    is_notification,
    is_request,
    is_response,
)
from toolhost.serve.budget import Budget
from toolhost.serve.headers import request_version
from toolhost.serve.stdio_reader import LineReader
from toolhost.serve.stdio_writer import HANGUP_EVERY, LineWriter, input_hung_up
from toolhost.stdout_guard import claim_stdout  # moved there; kept importable from here

__all__ = ["LineWriter", "StdioServer", "claim_stdout"]

log = logging.getLogger("toolhost.serve")

GIVE_UP_SECONDS = 1.0  # then, how long the cancelled requests' answers may take to go out
EOF_GRACE_SECONDS = 5.0  # how long calls may still finish after the client closed stdin


class StdioServer:
    """Serve one MCP peer over ``reader`` (lines in) and ``writer`` (lines out).

    ``reader`` and ``writer`` are binary file objects (the process's stdin and a private
    duplicate of its stdout). Reading happens in a worker thread, so any file works.
    """

    def __init__(self, handler: Handler, reader: IO[bytes], writer: IO[bytes], *,
                 on_eof: Callable[[], None] | None = None,
                 grace: float = EOF_GRACE_SECONDS, limits: Limits = DEFAULT_LIMITS) -> None:
        self._handler = handler
        self._limits = limits
        self._on_eof = on_eof
        self._grace = grace
        self._idle = anyio.Event()
        self._reader = reader
        self._lines = LineReader(reader)  # (a daemon thread: a blocked read never holds exit)
        self._writer = LineWriter(writer)
        # Bytes of answers and notifications waiting for the writer's lock (the writer counts
        # those it holds): past --max-in-flight-bytes in all, no further request is read
        self._waiting = 0
        self._room = anyio.Event()
        self._writer.on_written = lambda: self._room.set()
        self._lock = anyio.Lock()
        # ids of requests running (cancellation, duplicates), and how many requests are still
        # being answered (the end of input waits for their answers to be written)
        self._running: dict[Any, anyio.CancelScope] = {}
        self._answering = 0
        self._stopping = False  # the grace after the end of input ended (``_give_up``)
        # why the server stops: the client closed its input, or a signal (``stop``)
        self._ending = "the client closed its input"
        self._at_once = False  # a second Ctrl-C: cancelled without the grace (``stop_now``)
        self._signalled = anyio.Event()
        self._signal_name = ""
        self._grace_scope: anyio.CancelScope | None = None  # the wait ``stop_now`` ends
        # Requests in flight and the bytes of their lines: past either limit, the excess is
        # answered "busy" at once (memory stays bounded; accepted calls go on)
        self._budget = Budget(limits.max_in_flight, limits.max_in_flight_bytes,
                              scope="on this connection",
                              flags="toolhost serve --max-in-flight, --max-in-flight-bytes")
        self._closed = False
        # Requests we send the client (ctx.elicit, ctx.sample, asks): its declared
        # capabilities (from initialize) and our requests it has not answered yet.
        self._capabilities: Mapping[str, Any] = {}
        self._pending = Pending()
        # MCP has a connection initialized once (a second would renegotiate its version and
        # capabilities under calls in flight), so another is refused. One state: "none",
        # "answering" (``_initialize_id`` names the request) or "done".
        self._initialize: Literal["none", "answering", "done"] = "none"
        self._initialize_id: Any = None

    async def send(self, message: Mapping[str, Any]) -> None:
        """Write one message (an answer or a server notification) as one line."""
        data = wire.encode_answer(dict(message)) + b"\n"
        self._waiting += len(data)
        waiting = True
        try:
            async with self._lock:
                self._waiting -= len(data)
                waiting = False
                if self._closed:
                    return
                try:
                    await self._writer.write(data)
                except (BrokenPipeError, ValueError, OSError):
                    # The peer went away: nothing more can be said to it.
                    self._closed = True
        finally:
            if waiting:  # cancelled while it waited for the lock
                self._waiting -= len(data)
            self._room.set()

    async def _wait_for_room(self) -> bool:
        """Wait while the bytes not yet written to the client are over the in-flight bytes
        limit (a client that stops reading while sending requests would otherwise have
        every answer computed and held); False if the client closed our input meanwhile."""
        limit = self._limits.max_in_flight_bytes
        if self._waiting + self._writer.unwritten <= limit or self._closed:
            return True
        log.warning("stopped reading requests: %s bytes of answers wait for the client to "
                    "read them (toolhost serve --max-in-flight-bytes)",
                    f"{self._waiting + self._writer.unwritten:,}")
        while self._waiting + self._writer.unwritten > limit and not self._closed:
            self._room = anyio.Event()
            with anyio.move_on_after(HANGUP_EVERY):
                await self._room.wait()
            if input_hung_up(self._reader):
                log.info("the client closed its end without reading its answers")
                return False
        log.info("reading requests again")
        return True

    def stop(self, signal_name: str) -> None:
        """Shut down gracefully (a signal: SIGTERM, SIGHUP): new requests are refused at
        once, the calls running get the grace to answer, then are cancelled and answered
        -32800 saying why; answers to what they asked the client are still read meanwhile.
        Called on the event loop's thread."""
        if not self._signalled.is_set():
            self._ending = f"the server is shutting down ({signal_name})"
            self._signal_name = signal_name
            self._signalled.set()

    async def _drain_when_stopped(self, tg: TaskGroup) -> None:
        await self._signalled.wait()
        log.warning("%s: refusing new requests; %d being answered get %g s to finish "
                    "(toolhost serve --shutdown-grace)", self._ending, self._answering,
                    self._grace)
        with anyio.move_on_after(self._grace) as self._grace_scope:
            while self._answering:
                self._idle = anyio.Event()
                await self._idle.wait()
        if self._answering:
            await self._give_up()
        tg.cancel_scope.cancel()

    def stop_now(self) -> None:
        """A second Ctrl-C while ``stop`` waits: the calls still running are cancelled at
        once (each answered -32800 saying so)."""
        if self._signalled.is_set() and self._grace_scope is not None:
            self._ending = "the server was told to stop at once (a second Ctrl-C)"
            self._at_once = True
            self._grace_scope.cancel()

    async def run(self) -> None:
        """Serve until the input ends (the client closed our stdin) or ``stop``; then stop
        running calls."""
        limit = self._limits.max_message_bytes
        async with anyio.create_task_group() as tg:
            tg.start_soon(self._drain_when_stopped, tg)
            while await self._wait_for_room():
                # The newline may be the (limit + 1)th byte of a line of exactly `limit`.
                line = await self._lines.readline(limit + 1)
                if not line:
                    break
                if len(line) > limit and not line.endswith(b"\n"):
                    skipped = len(line) + await self._skip_rest_of_line()
                    log.warning("skipped a message of %s bytes (the limit is %s)",
                                f"{skipped:,}", f"{limit:,}")
                    await self.send(error_response(
                        None, rpc.INVALID_REQUEST, f"Invalid Request: the message is "
                        f"{skipped:,} bytes; the limit is {limit:,} (toolhost serve "
                        "--max-message)"))
                    continue
                if line.strip():
                    await self._dispatch(line, tg)
            # The client closed our input: answer what is running (briefly), then stop.
            if self._on_eof is not None:
                self._on_eof()
            # no answer to what the calls asked the client can come now: they answer at once
            self._pending.fail_all("the client closed its input before answering")
            if self._signalled.is_set():  # the drain under way ends it, within its grace
                await anyio.sleep_forever()
            with anyio.move_on_after(self._grace):
                while self._answering:
                    self._idle = anyio.Event()
                    await self._idle.wait()
            if self._answering:
                await self._give_up()
            tg.cancel_scope.cancel()
        self._closed = True

    async def _give_up(self) -> None:
        """The grace after the end of input is over: cancel what still runs, each request
        answered -32800 saying why (before, they were dropped unanswered: a client that
        closed its input and still reads its answers waited for them forever), for at most
        ``GIVE_UP_SECONDS`` (a client that reads nothing must not keep the server)."""
        log.warning("%s: %d request(s) still answered after the %g s grace; cancelling "
                    "those still running (%d)", self._ending, self._answering, self._grace,
                    len(self._running))
        self._stopping = True
        for scope in list(self._running.values()):
            scope.cancel()
        with anyio.move_on_after(GIVE_UP_SECONDS):
            while self._answering:
                self._idle = anyio.Event()
                await self._idle.wait()

    async def _skip_rest_of_line(self) -> int:
        """Read and drop the rest of an over-long line, in bounded chunks; its size."""
        skipped = 0
        while True:
            chunk = await self._lines.readline(1024 * 1024)
            skipped += len(chunk)
            if not chunk or chunk.endswith(b"\n"):
                return skipped

    async def _dispatch(self, line: bytes, tg: TaskGroup) -> None:
        try:
            message = wire.decode(line.rstrip(b"\r\n"), self._limits)
        except wire.WireError as exc:
            log.warning("refused a message: %s", exc.message)
            await self.send(exc.response())
            return
        if not isinstance(message, dict):
            # JSON-RPC batches were removed from MCP in 2025-06-18. Each request of one is
            # refused under its own id (one error with id null answered none of them: the
            # client waited for each); a line that holds none gets that one error.
            ids = [item["id"] for item in message if isinstance(item, dict)
                   and is_request(item) and rpc.is_valid_id(item["id"])] \
                if isinstance(message, list) else []
            for request_id in ids or [None]:
                await self.send(error_response(
                    request_id, rpc.INVALID_REQUEST, "Invalid Request: expected one JSON "
                    "object per line (batches are not supported: MCP 2025-06-18 removed "
                    "them; send each message on a line of its own)"))
            return
        if is_request(message):
            scope = anyio.CancelScope()
            request_id = message["id"]
            if not rpc.is_valid_id(request_id):
                await self.send(error_response(
                    None, rpc.INVALID_REQUEST, "Invalid Request: 'id' must be a string or a "
                    f"number, not {_json_type(request_id)}"))
                return
            if self._signalled.is_set():  # accepted ones finish; nothing new starts
                await self.send(error_response(
                    request_id, rpc.SERVER_BUSY, f"Server shutting down ({self._signal_name}"
                    "): no new request is started; send it again to a new server"))
                return
            if request_id in self._running:
                await self.send(error_response(
                    request_id, -32600,
                    f"Invalid Request: id {cut(repr(request_id), 100)} is already in use"))
                return
            if not self._budget.take(len(line)):
                log.warning("refused request %s: %d requests in flight",
                            cut(repr(request_id), 60), self._budget.count)
                await self.send(self._budget.refusal(request_id))
                return
            if message.get("method") == "initialize" and request_version(message) is None:
                refusal = self._initializing(message)
                if refusal is not None:
                    self._budget.give_back(len(line))
                    await self.send(refusal)
                    return
            self._running[request_id] = scope
            self._answering += 1
            tg.start_soon(self._serve_request, message, scope, len(line))
        elif is_notification(message):
            target_id = cancelled_id(message)
            if message["method"] == "notifications/cancelled" and rpc.is_valid_id(target_id):
                target = self._running.get(target_id)
                if self._answering_initialize(target_id):
                    # the spec: a client MUST NOT cancel its initialize, and a receiver may
                    # ignore a cancel of what cannot be cancelled: it is answered, once
                    log.info("ignored a cancel of the initialize request (id %s)",
                             cut(repr(target_id), 60))
                elif target is not None:
                    target.cancel()
            # Notifications get no answer; the core may still want to see them.
            tg.start_soon(self._serve_notification, message)
        elif is_response(message):
            refused = self._pending.refusal(message)
            if refused is not None:  # no line can say so to the client: the log does
                log.info("ignored a client's answer: %s", refused)
        else:
            # Neither a request, a notification nor a response: say so (to its id if usable).
            request_id = message.get("id")
            await self.send(error_response(
                request_id if rpc.is_valid_id(request_id) else None, rpc.INVALID_REQUEST,
                "Invalid Request: no 'method'"))

    async def _serve_request(self, message: dict[str, Any], scope: anyio.CancelScope,
                             size: int) -> None:
        request_id = message["id"]
        held = True
        try:
            with scope:
                channel = ClientChannel(self._capabilities, self.send, self._pending)
                try:
                    with client_channel(channel):
                        answer = await self._handler.handle(message, notify=self.send)
                except Exception as exc:  # a bug in the core must not stop the server
                    log_failure(log, f"request {cut(repr(request_id), 60)}", exc)
                    answer = error_response(request_id, rpc.INTERNAL_ERROR,
                                            f"Internal error ({type(exc).__name__}); the "
                                            "server logged it")
                # The request's bytes and its id come back before its answer goes out: a
                # client that sends its next request on reading the answer (with the same
                # id, even) finds the room it left. (The end of input still waits for the
                # answer to be written: ``_answering``.)
                self._budget.give_back(size)
                held = False
                if self._running.get(request_id) is scope:
                    del self._running[request_id]
                if message.get("method") == "initialize":
                    self._initialized_by(message, answer)
                if answer is not None:
                    await self.send(answer)
            if scope.cancelled_caught and self._stopping:
                await self.send(error_response(
                    request_id, rpc.REQUEST_CANCELLED, f"Request cancelled: {self._ending}"
                    + ("" if self._at_once else f" and the {self._grace:g} s "
                       "grace for running requests ended (toolhost serve --shutdown-grace)")))
            elif scope.cancelled_caught:
                log.info("request %r cancelled by the client", request_id)
        finally:
            if held:
                self._budget.give_back(size)
                if message.get("method") == "initialize":
                    self._initialized_by(message, None)  # cancelled, or failed: not done
            if self._running.get(request_id) is scope:  # not a newer request's, same id
                del self._running[request_id]
            self._answering -= 1
            if not self._answering:
                self._idle.set()

    def _initializing(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Start the connection's one ``initialize`` (its capabilities are the client's
        from now on, for requests sent right behind it), or the refusal of another."""
        if self._initialize != "none":
            when = ("was answered already" if self._initialize == "done"
                    else "is being answered")
            return error_response(
                message["id"], rpc.INVALID_REQUEST,
                f"Invalid Request: initialize (id {cut(repr(message['id']), 60)}): this "
                f"connection's initialize {when}; a connection is initialized once (to "
                "negotiate again, start a new one)")
        params = message.get("params")
        caps = params.get("capabilities") if isinstance(params, Mapping) else None
        self._capabilities = caps if isinstance(caps, Mapping) else {}
        self._initialize, self._initialize_id = "answering", message["id"]
        return None

    def _answering_initialize(self, request_id: Any) -> bool:
        """Whether ``request_id`` names the connection's initialize, being answered (ids
        compare as the running requests' do)."""
        return self._initialize == "answering" and self._initialize_id == request_id

    def _initialized_by(self, message: dict[str, Any], answer: dict[str, Any] | None) -> None:
        """The answer to the connection's ``initialize``: a result makes it so; an error
        (or none: cancelled) leaves the connection uninitialized and the capabilities it
        declared are dropped."""
        if not self._answering_initialize(message.get("id")):
            return
        self._initialize_id = None
        if answer is not None and "result" in answer:
            self._initialize = "done"
        else:
            self._initialize = "none"
            self._capabilities = {}

    async def _serve_notification(self, message: dict[str, Any]) -> None:
        try:
            await self._handler.handle(message, notify=self.send)
        except Exception as exc:
            log_failure(log, f"notification {cut(str(message.get('method')), 100)}", exc)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return "a non-finite number" if isinstance(value, float) else type(value).__name__
