"""The long-lived streams of ``toolhost serve --transport http``, counted and ended for good.

Two kinds of response stay open for as long as their client likes: a legacy session's
``GET /mcp`` stream and a ``subscriptions/listen`` stream (``POST``). Each is a ``Stream``
here, counted by the server's ``Streams``:

* at most ``Streams.limit`` open at once on the server (half of ``--max-connections``, so
  streams never take every connection from requests); one more is refused "server busy";
* at most ``MAX_SESSION_STREAMS`` per legacy session: one more ends the session's oldest (a
  client that reconnects gets its new stream even when its old connection is half dead);
* a stream whose client stops reading is *dropped*: its connection is closed at once (the
  bytes queued for it are thrown away), so its task, its queue and its socket are freed
  instead of waiting for a client that may never read again;
* a stream opened with an access token is dropped when the token expires (its ``exp`` and
  the leeway every token gets): a token is checked when a stream opens, and a stream must
  not outlive it. Its client opens another with a fresh token;
* a GET stream that is closed (not dropped) ends by saying why, in an SSE comment: the
  server shutting down (with a ``retry`` field: when to reconnect, SEP-1699, to a replica
  that serves on), the session ended (``DELETE``) or expired. Before, each ended with no
  word, and a client could not tell a shutdown from a lost connection.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Mapping
from typing import Any, Protocol

import anyio
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from toolhost.mcp import wire
from toolhost.serve.http_admission import WAITING_HEAD, Seats

__all__ = ["ABORT_EXTENSION", "GET_QUEUE", "HALF_CLOSED_EXTENSION", "MAX_SESSION_STREAMS",
           "SESSION_ENDED", "SESSION_EXPIRED", "SHUTDOWN_RETRY_MS", "SHUTTING_DOWN",
           "NotificationStream", "Stream", "StreamOwner", "Streams", "abort_connection",
           "half_closed", "sse_event"]

log = logging.getLogger("toolhost.serve")

MAX_SESSION_STREAMS = 4  # GET and listen streams of one legacy session
GET_QUEUE = 64  # notifications waiting for one GET stream; one more and it is dropped
# the scope extension (toolhost.serve.http_protocol) that closes the connection now
ABORT_EXTENSION = "toolhost.abort"
# the scope extension (toolhost.serve.http_protocol): an asyncio.Event set once the client
# has sent the end of its stream (it half-closed the connection, or closed it)
HALF_CLOSED_EXTENSION = "toolhost.half_closed"
# the last bytes of a GET stream the server closes: why (an SSE comment), and for a shutdown
# when to reconnect: after uvicorn's own last 2 s, so the client's reconnect reaches a
# replica that serves on (the official client gives up after two failed reconnects)
SHUTDOWN_RETRY_MS = 3000
SHUTTING_DOWN = (b": the server is shutting down; reconnect (any replica serves this "
                 b"session)\nretry: " + str(SHUTDOWN_RETRY_MS).encode() + b"\n\n")
SESSION_ENDED = b": the session was ended (DELETE)\n\n"
SESSION_EXPIRED = b": the session expired; start a new one (initialize)\n\n"
END_SECONDS = 1.0  # to end a stream whose client half-closed (a write may wait for it)
SSE_HEADERS = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache"),
               (b"x-accel-buffering", b"no")]

def abort_connection(scope: Scope) -> bool:
    """Close the connection carrying ``scope``'s request at once, throwing away what is
    queued for it; False when the server offers no way to (then end the response)."""
    abort = scope.get("extensions", {}).get(ABORT_EXTENSION)
    if not callable(abort):
        return False
    abort()
    return True


async def half_closed(scope: Scope) -> None:
    """Return once the client has sent the end of its stream; never without the protocol's
    event (``HALF_CLOSED_EXTENSION``). A stream (``GET``, listen) takes that as its client
    gone, as before half-closed connections were answered: it ends, so a client that closed
    its socket never holds a stream slot that no write would ever free."""
    event = scope.get("extensions", {}).get(HALF_CLOSED_EXTENSION)
    if not isinstance(event, asyncio.Event):
        await anyio.sleep_forever()
        return
    await event.wait()


def sse_event(message: Mapping[str, Any]) -> bytes:
    return b"event: message\ndata: " + wire.encode_answer(dict(message)) + b"\n\n"


class Stream:
    """One open stream as the server counts it. ``ended`` is set when it must stop: dropped
    (``drop``: close its connection now) or closed (``close``: a GET stream sends what is
    queued, then ends). A GET stream has a queue (``offer``); a listen stream hears through
    the core and has none."""

    def __init__(self, queue: int = 0) -> None:
        self.ended = anyio.Event()
        self.dropped = False
        self.expiry: asyncio.TimerHandle | None = None  # drops it when its token expires
        self.farewell = b""  # a GET stream's last bytes when closed: why it ends
        self.holder = ""  # its client (Streams: a fair share of the streams)
        self.inbox: MemoryObjectReceiveStream[dict[str, Any]] | None = None
        self._send: MemoryObjectSendStream[dict[str, Any]] | None = None
        if queue:
            self._send, self.inbox = anyio.create_memory_object_stream[dict[str, Any]](queue)

    def offer(self, message: dict[str, Any]) -> None:
        """Queue ``message`` without waiting; a stream whose queue is full is dropped."""
        if self._send is None or self.ended.is_set():
            return
        try:
            self._send.send_nowait(message)
        except anyio.WouldBlock:
            log.warning("a GET stream fell %d notifications behind (its client does not "
                        "read); closing its connection", GET_QUEUE)
            self.drop()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    def drop(self) -> None:
        """End the stream now: its connection is closed, what is queued is thrown away."""
        self.dropped = True
        self.ended.set()

    def close(self, farewell: bytes = b"") -> None:
        """End a GET stream after what is queued, then ``farewell`` (a listen stream ends
        with the core's ``close`` on shutdown, or when its client goes)."""
        if self._send is not None:
            if farewell and not self.farewell:
                self.farewell = farewell
            self._send.close()


class StreamOwner(Protocol):
    """A legacy session as its streams are counted (toolhost.serve.http_state.Session)."""

    streams: dict[Stream, None]  # its open GET and listen streams, oldest first


class Streams:
    """The streams open on one server: at most ``limit``, and ``MAX_SESSION_STREAMS`` a
    session (kept in ``session.streams``, oldest first). When ``limit`` are open, a client
    holding more of them than the newcomer's client plus one has its oldest dropped for it
    (``http_admission``), so one client opening streams from many sessions cannot leave
    another client none."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self._seats = Seats()
        self._warned = -60.0  # when the last "dropping" line was logged

    def open(self, session: StreamOwner | None, *, queue: int = 0, expires: float = math.inf,
             holder: str = "") -> Stream | None:
        """A new stream for a client ``holder`` (``session_table.holder_of``), or None when
        the server has ``limit`` open and no client holds more than its share. ``expires``
        (seconds since the epoch, its access token's ``exp``): it is dropped then."""
        if self.count >= self.limit:
            self._seats.take(holder, _NEWCOMER)  # the newcomer counts with its client
            try:
                victim = self._seats.victim(holder, _droppable)
            finally:
                self._seats.give_back(holder, _NEWCOMER)
            if victim is None:
                log.warning("refused a stream: %s are open (half of --max-connections)",
                            f"{self.count:,}")
                return None
            now = time.monotonic()
            if now - self._warned >= 60:  # one line a minute, however many are dropped
                self._warned = now
                log.warning("%s streams are open (half of --max-connections): dropping the "
                            "oldest of the client holding the most (%s) for other clients'",
                            f"{self.count:,}", victim.holder or "?")
            victim.drop()  # (it stops counting once its response has ended)
        stream = Stream(queue)
        stream.holder = holder
        self._seats.take(holder, stream)
        if expires != math.inf:
            from toolhost.serve.auth import LEEWAY

            stream.expiry = asyncio.get_running_loop().call_later(
                max(0.0, expires + LEEWAY - time.time()), _expired, stream)
        if session is not None:
            while len(session.streams) >= MAX_SESSION_STREAMS:
                oldest = next(iter(session.streams))
                log.info("closed a session's oldest stream: it opened more than %d",
                         MAX_SESSION_STREAMS)
                del session.streams[oldest]
                oldest.drop()
            session.streams[stream] = None
        self.count += 1
        return stream

    def done(self, stream: Stream, session: StreamOwner | None) -> None:
        """``stream`` ended: it no longer counts."""
        if stream.expiry is not None:
            stream.expiry.cancel()
        self.count -= 1
        self._seats.give_back(stream.holder, stream)
        if session is not None:
            session.streams.pop(stream, None)

    def held_by(self, holder: str) -> int:
        """The streams ``holder`` has open."""
        return self._seats.count(holder)

    def busy(self) -> str:
        return (f"Server busy: {self.count:,} streams are open (toolhost serve "
                "--max-connections: at most half of them); try again later")


_NEWCOMER = object()  # a stream about to open, counted while a victim is chosen for it


def _droppable(stream: Any) -> int | None:
    """A stream not ending already may be dropped for another client's (``Seats.victim``)."""
    return None if stream is _NEWCOMER or stream.ended.is_set() else WAITING_HEAD


def _expired(stream: Stream) -> None:
    if not stream.ended.is_set():
        log.info("closed a stream: the access token it was opened with expired")
        stream.drop()


class NotificationStream(Response):
    """A legacy session's ``GET`` stream: server notifications until the client leaves, the
    session ends (what is queued, then the end) or the stream is dropped (at once)."""

    def __init__(self, session: StreamOwner, stream: Stream, streams: Streams) -> None:
        super().__init__()
        self._session = session
        self._stream = stream
        self._streams = streams

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        stream = self._stream
        inbox = stream.inbox
        assert inbox is not None

        said = {"started": False, "ended": False, "gone": False}

        async def watch_disconnect(cancel: anyio.CancelScope) -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            said["gone"] = True
            cancel.cancel()

        async def watch_drop(cancel: anyio.CancelScope) -> None:
            await stream.ended.wait()
            if stream.dropped:
                abort_connection(scope)
                cancel.cancel()

        async def watch_half_close(cancel: anyio.CancelScope) -> None:
            await half_closed(scope)
            cancel.cancel()

        try:
            async with anyio.create_task_group() as tg, inbox:
                tg.start_soon(watch_disconnect, tg.cancel_scope)
                tg.start_soon(watch_drop, tg.cancel_scope)
                tg.start_soon(watch_half_close, tg.cancel_scope)
                await send({"type": "http.response.start", "status": 200,
                            "headers": list(SSE_HEADERS)})
                said["started"] = True
                await send({"type": "http.response.body", "body": b": stream open\n\n",
                            "more_body": True})
                async for message in inbox:
                    await send({"type": "http.response.body", "body": sse_event(message),
                                "more_body": True})
                await send({"type": "http.response.body", "body": stream.farewell})
                said["ended"] = True
                tg.cancel_scope.cancel()
            if not (said["ended"] or said["gone"] or stream.dropped):
                # the client half-closed: the response still ends well formed (cut off, it
                # was a chunked body without its end to a client still reading, and uvicorn
                # logged "ASGI callable returned without completing response" at ERROR)
                with anyio.move_on_after(END_SECONDS):
                    if not said["started"]:
                        await send({"type": "http.response.start", "status": 200,
                                    "headers": list(SSE_HEADERS)})
                    await send({"type": "http.response.body", "body": b""})
        finally:
            stream.close()
            self._streams.done(stream, self._session)
