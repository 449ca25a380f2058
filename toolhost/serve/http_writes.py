"""How one POSTed request's answer is written (``toolhost.serve.http_exchange``): as JSON or as
an event stream, every write bounded by ``--write-timeout`` so a client that stops reading
cannot hold the call (and its tool) past it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import anyio
import anyio.lowlevel
from anyio.streams.memory import MemoryObjectReceiveStream
from starlette.types import Message, Scope, Send

from toolhost.excerpt import cut
from toolhost.mcp import wire
from toolhost.serve.headers import http_status_for
from toolhost.serve.http_streams import SSE_HEADERS, abort_connection
from toolhost.serve.http_streams import sse_event as _sse_event

__all__ = ["PROBE", "STALL_PIECE", "Writer", "event_bytes"]

log = logging.getLogger("toolhost.serve")

PROBE = object()  # in an outbox: an SSE comment, no message
_PROBE_BYTES = b": still working\n\n"
# A write the client takes none of for ``Limits.write_timeout`` (its socket buffers full: it
# stopped reading) drops the connection and cancels the call. Else a client that stops
# reading a stream of progress holds the call past its timeout: a sync tool's thread waits to
# hand over its next notification, is counted stuck, and 8 such calls refuse the tool to
# everyone. It is measured per piece of this many bytes: a large answer to a slow but reading
# client takes longer as a whole (uvicorn's send waits for most of it to leave)
STALL_PIECE = 64 * 1024


def event_bytes(message: Any) -> bytes:
    """An outbox item as SSE bytes: a message event, or a probe's comment."""
    return _PROBE_BYTES if message is PROBE else _sse_event(message)


class Writer:
    """The writes of one response. A write the client takes nothing of for ``timeout``
    seconds marks it ``stalled``, drops the connection and calls ``on_stall`` (which cancels
    the exchange); later writes are skipped (the connection is closed)."""

    def __init__(self, send: Send, scope: Scope, request_id: Any, timeout: float,
                 headers: dict[str, str], modern: bool,
                 on_stall: Callable[[], None]) -> None:
        self._send, self._scope, self._request_id = send, scope, request_id
        self._timeout, self._headers, self._modern = timeout, headers, modern
        self._on_stall = on_stall
        self.stalled = False
        self.sse_open = False  # an event stream is open and its answer not sent yet

    async def write(self, message: Message) -> None:
        """``send``, a large body in pieces of STALL_PIECE bytes, each within the timeout."""
        body = message.get("body", b"")
        if message["type"] != "http.response.body" or len(body) <= STALL_PIECE:
            await self._piece(message)
            return
        more = message.get("more_body", False)
        for start in range(0, len(body), STALL_PIECE):
            last = start + STALL_PIECE >= len(body)
            await self._piece({"type": "http.response.body",
                               "body": body[start:start + STALL_PIECE],
                               "more_body": more if last else True})

    async def _piece(self, message: Message) -> None:
        if self.stalled:
            return  # its connection is closed
        with anyio.move_on_after(self._timeout) as waited:
            await self._send(message)
        if waited.cancelled_caught:
            self.stalled = True
            log.warning("request %s: its client read nothing for %gs; closing the "
                        "connection and cancelling the call (--write-timeout)",
                        cut(repr(self._request_id), 60), self._timeout)
            abort_connection(self._scope)
            self._on_stall()
            await anyio.lowlevel.checkpoint()  # (raises: cancelled)

    def _with_headers(self, extra: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
        return extra + [(k.encode(), v.encode()) for k, v in self._headers.items()]

    async def send_json(self, answer: dict[str, Any] | None) -> None:
        """The answer as one JSON body (202 without one: the core chose not to answer)."""
        if answer is None:
            await self.write({"type": "http.response.start", "status": 202,
                              "headers": self._with_headers([])})
            await self.write({"type": "http.response.body", "body": b""})
            return
        body = wire.encode_answer(answer)
        status = http_status_for(answer) if self._modern else 200
        await self.write({"type": "http.response.start", "status": status,
                          "headers": self._with_headers(
                              [(b"content-type", b"application/json"),
                               (b"content-length", str(len(body)).encode())])})
        await self.write({"type": "http.response.body", "body": body})

    async def send_sse(self, first: dict[str, Any],
                       outbox: MemoryObjectReceiveStream[tuple[bool, Any]] | None, *,
                       final: bool = False) -> None:
        """An event stream: ``first``, then what the outbox holds until its final item."""
        await self.write({"type": "http.response.start", "status": 200,
                          "headers": self._with_headers(list(SSE_HEADERS))})
        await self.write({"type": "http.response.body", "body": event_bytes(first),
                          "more_body": True})
        if final or outbox is None:
            await self.write({"type": "http.response.body", "body": b""})
            return
        self.sse_open = True  # until its answer is sent: a cancel then still answers
        async for last, message in outbox:
            if message is not None:
                await self.write({"type": "http.response.body", "body": event_bytes(message),
                                  "more_body": True})
            if last:
                break
        self.sse_open = False
        await self.write({"type": "http.response.body", "body": b""})

    async def end_cancelled(self, cancelled: dict[str, Any], started: bool,
                            json_ok: bool) -> None:
        """Answer a cancelled exchange: with ``cancelled`` as its whole answer when nothing
        was sent yet, else as the last event of its open stream."""
        if not started:
            if json_ok:
                await self.send_json(cancelled)
            else:
                await self.send_sse(cancelled, None, final=True)
        elif self.sse_open:
            await self.write({"type": "http.response.body", "body": _sse_event(cancelled),
                              "more_body": True})
            await self.write({"type": "http.response.body", "body": b""})
