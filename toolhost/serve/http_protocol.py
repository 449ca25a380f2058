"""The connection side of ``toolhost serve --transport http``: uvicorn's h11 protocol with

* a deadline for each request's headers, so half-sent requests (slowloris) are closed
  instead of piling up;
* a request head over ``MAX_HEAD_BYTES`` or ``MAX_HEADER_LINES`` lines refused (431) before
  h11 parses it (h11 bounds only a head still incomplete: 64 KiB arriving at once, 6,000
  headers, cost 20 times a plain request to parse);
* a request head naming both ``Content-Length`` and ``Transfer-Encoding`` refused (400) and
  its connection closed: RFC 9112 lets a server read the body by the latter, but a proxy in
  front reading it by the former would then pass the rest on as a request of its own
  (request smuggling), so which one counts is not guessed; so is a head h11 reads by the
  RFC's leave that a proxy may read otherwise (bare LF line ends, obs-fold, a repeated
  ``Content-Length``: ``toolhost.serve.http_heads``);
* a connection past ``--max-connections`` answered 503 and closed at once, unless a client
  holding more connections than its own has one waiting for a request (closed instead:
  ``toolhost.serve.http_admission``);
* a request h11 cannot read (a bad header byte, two ``Content-Length`` values, a bad chunk)
  answered 400 with a JSON-RPC error naming what is wrong (uvicorn's own answer is the
  plain text "Invalid HTTP request received."), and a chunk announcing more bytes than a
  message may have (``--max-message``) answered 413 at once instead of waiting for them
  until the body deadline; a body of over ``SMALL_CHUNKS`` chunks averaging under
  ``SMALL_CHUNK_BYTES`` bytes is 400 (reading one costs an event per chunk);
* an ``Upgrade`` request (websocket, h2c) served as plain HTTP/1.1, without uvicorn's two
  warnings per request;
* a way for each request to close its connection at once (``http_streams.abort_connection``);
* half-closed connections answered: a client that shuts down its write side once its
  request is sent (``shutdown(SHUT_WR)``, ``nc -N``) still reads, and gets its answer. TCP
  cannot tell that from a client that closed its socket, so the request's response hears of
  it (``http_streams.HALF_CLOSED_EXTENSION``) and finds out by writing
  (``toolhost.serve.http_exchange``: a client that is gone answers the write with a reset,
  and the call is cancelled); a stream (``GET``, listen) ends, as for a client gone. The
  connection closes once the requests received before the end are answered.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from toolhost.excerpt import cut
from toolhost.serve.http_admission import RECEIVING_BODY, WAITING_HEAD, Seats, holder_of_peer
from toolhost.serve.http_chunks import ChunkScan
from toolhost.serve.http_heads import (
    MAX_HEAD_BYTES,
    MAX_HEADER_LINES,
    TOO_LARGE,
    answer,
    head_refusal,
    head_too_large,
)
from toolhost.serve.http_refusals import (
    BUSY,
    SMALL_CHUNK_BYTES,
    SMALL_CHUNKS,
    bad_request,
    chunk_too_large,
    small_chunks,
)
from toolhost.serve.http_streams import ABORT_EXTENSION, HALF_CLOSED_EXTENSION

__all__ = ["MAX_HEADER_LINES", "MAX_HEAD_BYTES", "head_refusal", "head_too_large",
           "header_deadline_protocol"]

log = logging.getLogger("toolhost.serve")

def header_deadline_protocol(header_timeout: float, max_connections: int | None = None,
                             max_body: int | None = None) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request headers are not complete
    ``header_timeout`` seconds after it opened (or after its previous response), answering
    a connection past ``max_connections`` 503 at once (then closing it), a request h11
    cannot read 400 (JSON-RPC error) and a chunk over ``max_body`` bytes 413."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    warned = [-60.0, -60.0]  # when the last "too many connections" lines were logged
    seats = Seats()  # the open connections by client (a fair admission past the limit)

    class HeaderDeadline(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None
        _half_closed: asyncio.Event | None = None  # set once the client sent its end
        _bad: bytes | None = None  # the 400 answering what h11 (or a bound) refused
        _chunks = 0  # chunks of the request's body so far
        _body_bytes = 0  # its bytes so far
        _scan: ChunkScan | None = None  # the framing of its body, when chunked (our reading)
        _holder: str | None = None  # its client, as ``seats`` counts it

        def data_received(self, data: bytes) -> None:
            # a new request's head: refused before h11 parses it when it is too large
            if self.conn.their_state is h11.IDLE:
                answer = head_refusal(bytes(self.conn.trailing_data[0]) + data)
                if answer is not None:
                    self._refuse_head(answer)
                    return
            if self._scan is not None and not self._scan.done:
                self._scan.feed(data)  # (before h11 reads it: a fault is found first)
            super().data_received(data)
            if max_body is not None and self._scan is not None:
                # h11 waits for a whole chunk however large it says it is (2**64 bytes)
                waiting = self._scan.announced
                if waiting > max_body and not self.transport.is_closing():
                    log.info("refused a request with a chunk of %d bytes", waiting)
                    self._disarm()
                    self.transport.write(chunk_too_large(waiting, max_body))
                    self.transport.close()

        def _should_upgrade_to_ws(self) -> bool:
            return False  # no WebSocket here, whatever library is installed

        def _unsupported_upgrade_warning(self) -> None:
            # An Upgrade header (websocket, h2c) is ignored, as RFC 9110 lets a server do,
            # and the request served over HTTP/1.1; uvicorn logged two warnings per request
            # (one telling the operator to install a WebSocket library)
            pass

        def send_400_response(self, msg: str) -> None:
            # uvicorn's answer to what h11 cannot read, as a JSON-RPC error naming why
            if self.conn.our_state in (h11.IDLE, h11.SEND_RESPONSE) \
                    and not self.transport.is_closing():
                self.transport.write(self._bad or bad_request(None))
            self._disarm()
            self.transport.close()

        def _refuse_head(self, answer: bytes) -> None:
            if answer is TOO_LARGE:
                log.info("refused a request whose head is over %d headers or %d bytes",
                         MAX_HEADER_LINES, MAX_HEAD_BYTES)
            self._disarm()
            self.transport.write(answer)
            self.transport.close()

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            next_event = self.conn.next_event

            def noting_why() -> Any:  # uvicorn's 400 drops h11's reason: keep it
                fault = self._scan.fault if self._scan is not None else None
                if fault is not None:
                    log.info("refused a chunked body: %s", fault)
                    self._bad = answer(400, "Bad Request", f"Bad Request: {fault}")
                    raise h11.RemoteProtocolError(fault)
                try:
                    event: Any = next_event()
                except h11.RemoteProtocolError as exc:
                    if self._bad is None:
                        self._bad = bad_request(exc)
                    raise
                kind = type(event)
                if kind is h11.Data:
                    self._body_bytes += len(event.data)
                    if event.chunk_start:
                        self._chunks += 1
                        if (self._chunks > SMALL_CHUNKS
                                and self._body_bytes < self._chunks * SMALL_CHUNK_BYTES):
                            log.info("refused a body of %d chunks of %d bytes in all",
                                     self._chunks, self._body_bytes)
                            self._bad = small_chunks(self._chunks, self._body_bytes)
                            raise h11.RemoteProtocolError("small chunks")
                elif kind is h11.Request:
                    self._chunks = self._body_bytes = 0
                    self._scan = None
                    if any(name == b"transfer-encoding" for name, _ in event.headers):
                        # (h11 reads a body chunked only, and refused any other coding)
                        self._scan = ChunkScan()
                        # what came after the head so far; later bytes: data_received
                        self._scan.feed(bytes(self.conn.trailing_data[0]))
                return event
            self.conn.next_event = noting_why  # type: ignore[method-assign]
            self._holder = holder_of_peer(transport.get_extra_info("peername"))
            seats.take(self._holder, self)
            if max_connections is not None and len(self.connections) > max_connections \
                    and not self._make_room():
                self._refuse()
                return
            self._arm()

        def _make_room(self) -> bool:
            """Close a connection of a client holding more than this one's does, one that
            is owed no answer (``http_admission``); False when there is none."""
            assert self._holder is not None
            victim = seats.victim(self._holder, lambda other: other._rank())
            if victim is None:
                return False
            now = time.monotonic()
            if now - warned[1] >= 60:
                warned[1] = now
                log.warning("%d connections are open (toolhost serve --max-connections): "
                            "closing those of the client holding the most (%s), waiting "
                            "for a request, to serve other clients", max_connections,
                            cut(victim._holder or "?", 60))
            victim._disarm()
            victim.transport.close()
            seats.give_back(victim._holder, victim)  # (its connection_lost comes later)
            self.connections.discard(victim)
            return True

        def _rank(self) -> int | None:
            """How readily this connection is closed for another client's (lower first),
            None: never (its request is being answered, or it is closing already)."""
            if self.transport.is_closing():
                return None
            state, cycle = self.conn.their_state, self.cycle
            if state is h11.IDLE and (cycle is None or cycle.response_complete):
                return WAITING_HEAD
            if state is h11.SEND_BODY and cycle is not None and not cycle.response_started:
                return RECEIVING_BODY
            return None

        def _refuse(self) -> None:
            now = time.monotonic()
            if now - warned[0] >= 60:  # one line a minute, however many are refused
                warned[0] = now
                log.warning("refused connections: %d are open (toolhost serve "
                            "--max-connections)", max_connections)
            self.transport.write(BUSY)
            self.transport.close()
            # no longer counted (it is closing): else, until it is gone, uvicorn's own
            # concurrency limit refuses the request of a connection admitted meanwhile
            self.connections.discard(self)
            if self._holder is not None:
                seats.give_back(self._holder, self)
                self._holder = None

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the headers are in: the body has its own deadline
            cycle = self.cycle
            if cycle is not None and not cycle.response_complete:
                # before its task first runs: a dropped stream closes the connection now
                scope: dict[str, Any] = cycle.scope  # type: ignore[assignment]
                extensions = scope.setdefault("extensions", {})
                extensions[ABORT_EXTENSION] = self.transport.abort
                if self._half_closed is None:
                    self._half_closed = asyncio.Event()
                extensions[HALF_CLOSED_EXTENSION] = self._half_closed

        def eof_received(self) -> bool | None:  # type: ignore[override]
            # A request received whole and not yet answered: answer it (the client may
            # only have shut down its write side), writing on a connection half open.
            # Anything else (no request, or one cut off in its body) closes, as before.
            cycle = self.cycle
            if (cycle is not None and not cycle.response_complete
                    and self.conn.their_state is h11.DONE and self._half_closed is not None):
                self._half_closed.set()
                return True
            return None

        def on_response_complete(self) -> None:
            if not self.transport.is_closing() and self.conn.their_state is h11.DONE:
                answer = head_refusal(bytes(self.conn.trailing_data[0]))
                if answer is not None:
                    self._refuse_head(answer)  # a pipelined request, received meanwhile
                    return
            super().on_response_complete()
            if self._half_closed is not None and self._half_closed.is_set():
                # nothing more will arrive: close once no request received is left
                cycle = self.cycle
                if (cycle is None or cycle.response_complete
                        or self.conn.their_state is not h11.DONE):
                    self.transport.close()
                return
            self._arm()  # the next request on this connection gets the same deadline

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._holder is not None:
                seats.give_back(self._holder, self)
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            if not self.transport.is_closing():
                self._header_timer = self.loop.call_later(header_timeout, self._expire)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _expire(self) -> None:
            self._header_timer = None
            waiting = self.conn.their_state is h11.IDLE and (
                self.cycle is None or self.cycle.response_complete)
            if waiting and not self.transport.is_closing():
                log.info("closed a connection that sent no complete request headers "
                         "within %gs", header_timeout)
                self.transport.close()

    return HeaderDeadline
