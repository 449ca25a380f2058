"""The ASGI response of one POSTed request of ``toolhost serve --http`` (JSON, or SSE once
the call sends a notification; a ``subscriptions/listen`` stream is one too): the call, the
watches that cancel it when its client goes, and its questions to the client. How it is
written is ``toolhost.serve.http_writes``; a legacy session is
``toolhost.serve.http_state.Session``. ``HttpServer`` (``toolhost.serve.http``) routes to them; a
session's ``GET`` stream is ``toolhost.serve.http_streams.NotificationStream``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Hashable
from typing import Any

import anyio
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import DEFAULT_LIMITS
from toolhost.mcp.client_requests import ClientChannel, client_channel
from toolhost.mcp.jsonrpc import REQUEST_CANCELLED, cancelled_response
from toolhost.permissions.callers.identity import Caller, as_caller
from toolhost.serve.base import Handler, error_response, stream_dropped
from toolhost.serve.headers import SESSION_HEADER
from toolhost.serve.http_access import note, note_answer
from toolhost.serve.http_state import InFlight, Session
from toolhost.serve.http_streams import (
    HALF_CLOSED_EXTENSION,
    Stream,
    Streams,
    abort_connection,
    half_closed,
)
from toolhost.serve.http_writes import PROBE, Writer

__all__ = ["Exchange"]

log = logging.getLogger("toolhost.serve")

# A client that half-closed its connection (``toolhost.serve.http_protocol``) may have closed
# it instead: a call still running PROBE_AFTER seconds later, for a client that reads SSE, is
# answered as an event stream with a comment every PROBE_EVERY seconds. A client gone answers
# the first with a reset and the next write fails: the call is cancelled, as for a close.
PROBE_AFTER = 1.0
PROBE_EVERY = 1.0
# when an answer to the call's question comes on a half-closed connection: probes this far
# apart (0.8 s in all, within pending.CHECK_SECONDS), a reset found by the second
ALIVE_PAUSES = (0.02, 0.05, 0.1, 0.2, 0.4)


class Exchange(Response):
    """One POSTed request: JSON if the call says nothing before answering, else SSE."""

    def __init__(self, handler: Handler, message: dict[str, Any], session: Session | None,
                 modern: bool, headers: dict[str, str], in_flight: InFlight,
                 caller: Caller | None, *, json_ok: bool = True, sse_ok: bool = True,
                 release: Callable[[], None] | None = None, peer: Hashable = None,
                 stream: Stream | None = None, streams: Streams | None = None,
                 write_timeout: float = DEFAULT_LIMITS.write_timeout) -> None:
        super().__init__()
        self._write_timeout = write_timeout  # --write-timeout (Limits.write_timeout)
        # a listen stream: counted by ``streams`` until it ends, dropped when its client
        # falls behind (its connection closed at once)
        self._stream = stream
        self._streams = streams
        self._peer = peer
        self._release = release  # gives back what the request took of the budgets
        self._caller = caller
        self._in_flight = in_flight
        self._json_ok = json_ok  # what the client's Accept admits
        self._sse_ok = sse_ok
        self._handler = handler
        self._message = message
        self._session = session
        self._modern = modern
        self._extra = headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # A listen stream is no call in flight: it ends when the server closes it, so a
        # graceful shutdown must not wait for it (it would wait the whole grace)
        counted = self._message.get("method") != "subscriptions/listen"
        if counted:
            self._in_flight.enter()
        elif self._release is not None:
            # nor does it hold the in-flight budgets: its message is parsed and small
            # (MAX_LISTEN_BYTES), and it may stay open for as long as its client likes
            self._release()
            self._release = None
        try:
            await self._exchange(scope, receive, send)
        finally:
            if counted:
                self._in_flight.leave()
            if self._release is not None:
                self._release()
            if self._stream is not None and self._streams is not None:
                self._streams.done(self._stream, self._session)

    async def _exchange(self, scope: Scope, receive: Receive, send: Send) -> None:
        outbox_send, outbox = anyio.create_memory_object_stream[tuple[bool, Any]](64)
        request_id = self._message["id"]

        async def notify(note: dict[str, Any]) -> None:
            if self._sse_ok:  # a JSON-only client cannot hear notifications on this request
                await outbox_send.send((False, note))

        # Requests to the client go out on this response's event stream; its answers come
        # back as POSTs of the session (the 2025 revisions; none in the stateless era)
        session = self._session
        gone: list[str] = []  # why the call is cancelled, when its client is the cause

        def ended() -> str | None:  # told to an answer that comes too late
            return gone[0] if gone else self._in_flight.reason

        half_close = scope.get("extensions", {}).get(HALF_CLOSED_EXTENSION)

        async def alive() -> bool:
            """Whether the client still reads this call, asked when an answer to its
            question comes: a client that closed its side may be gone, which only a write
            tells (answered by a reset); so write probes now, a little apart, rather than
            hand the answer to a tool whose result nobody would read."""
            if not isinstance(half_close, asyncio.Event) or not half_close.is_set():
                return not gone  # (a connection closed with a reset is seen at once)
            for pause in ALIVE_PAUSES:
                if gone:
                    break
                with contextlib.suppress(anyio.WouldBlock):
                    outbox_send.send_nowait((False, PROBE))
                await anyio.sleep(pause)
            return not gone

        channel = (ClientChannel(session.capabilities, notify, session.pending, ended, alive)
                   if session is not None and self._sse_ok else None)

        stream = self._stream
        answered = False  # the core has answered: a disconnect now cancels nothing

        async def run() -> None:
            nonlocal answered
            if stream is not None:  # the core ends it for good with stream.drop
                stream_dropped.set(stream.drop)
            try:
                with client_channel(channel), as_caller(self._caller):
                    answer = await self._handler.handle(self._message, notify=notify,
                                                        peer=self._peer)
            except Exception as exc:  # a bug in the core must not kill the connection
                log_failure(log, f"request {cut(repr(request_id), 60)}", exc)
                answer = error_response(request_id, -32603, f"Internal error "
                                        f"({type(exc).__name__}); the server logged it")
            answered = True
            note_answer(scope, answer)
            if answer is not None and "error" in answer \
                    and self._message.get("method") == "initialize":
                # a handshake refused starts no session: its id is not handed out
                self._extra.pop(SESSION_HEADER, None)
            await outbox_send.send((True, answer))

        async def watch_disconnect(cancel: anyio.CancelScope) -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            if not answered:  # (the end of every answered response reads as a disconnect)
                log.info("request %r: client closed the response; cancelling", request_id)
                gone.append("its client closed the response stream")
            cancel.cancel()

        async def watch_drop(stream: Stream, cancel: anyio.CancelScope) -> None:
            await stream.ended.wait()
            if stream.dropped:
                log.info("request %r: its stream was dropped; closing the connection",
                         request_id)
                gone.append("its stream was dropped")
                abort_connection(scope)
                cancel.cancel()

        async def watch_half_close(cancel: anyio.CancelScope) -> None:
            await half_closed(scope)  # a listen stream's client is taken as gone
            log.info("request %r: client closed its side; ending the stream", request_id)
            gone.append("its client closed its side of the connection")
            cancel.cancel()

        async def probe(event: asyncio.Event) -> None:
            await event.wait()
            await anyio.sleep(PROBE_AFTER)
            while True:
                await outbox_send.send((False, PROBE))
                await anyio.sleep(PROBE_EVERY)

        def on_stall() -> None:
            gone.append("its client stopped reading the response")
            tg.cancel_scope.cancel()

        writer = Writer(send, scope, request_id, self._write_timeout, self._extra,
                        self._modern, on_stall)
        started = False
        async with anyio.create_task_group() as tg, outbox_send, outbox:
            self._in_flight.track(tg.cancel_scope)
            if self._session is not None:
                self._session.running[request_id] = tg.cancel_scope
            tg.start_soon(run)
            tg.start_soon(watch_disconnect, tg.cancel_scope)
            if stream is not None:
                tg.start_soon(watch_drop, stream, tg.cancel_scope)
                tg.start_soon(watch_half_close, tg.cancel_scope)
            elif self._sse_ok and isinstance(half_close, asyncio.Event):
                tg.start_soon(probe, half_close)
            try:
                final, first = await outbox.receive()
                started = True
                if final and (self._json_ok or first is None):
                    await writer.send_json(first)
                else:
                    await writer.send_sse(first, outbox, final=final)
            finally:
                self._in_flight.untrack(tg.cancel_scope)
                running = self._session.running if self._session is not None else {}
                if running.get(request_id) is tg.cancel_scope:  # not a newer one's, same id
                    del running[request_id]
                tg.cancel_scope.cancel()
        if writer.stalled:  # the answer never reached the client
            note(scope, outcome="cancelled")
        if writer.stalled or (stream is not None and stream.dropped):
            return  # its connection is closed: nothing more can be said on it
        reason = self._in_flight.reason
        cancelled = cancelled_response(request_id) if reason is None else \
            error_response(request_id, REQUEST_CANCELLED, reason)
        if not started or writer.sse_open:
            note(scope, outcome="cancelled")
        # Cancelled: by a legacy notifications/cancelled (the client may still read this
        # response: like the official SDK, end it with -32800, never a bodiless reply a
        # client cannot parse), by the end of a shutdown's grace, or because the client left
        # (nobody reads it); a stream cancelled while open is ended answered
        await writer.end_cancelled(cancelled, started, self._json_ok)
