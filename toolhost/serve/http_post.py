"""``POST /mcp``: one JSON-RPC message read within its limits, checked, and answered.

A request becomes an ``Exchange`` (``toolhost.serve.http_exchange``: JSON, or SSE once the call
sends a notification) once it is counted into its session's budget and the server's; a
notification or a client's answer is handled here and answered 202. Every refusal is a
JSON-RPC error with its HTTP status: 415 (not JSON, or compressed), 406 (Accept), 400
(headers that disagree with the body): ``toolhost.serve.http_post_checks``; 413/408/400 (the
body), 400 (not one message), 404 (an unknown session), 409 (an answer no question of the
session waits for, saying why).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp import wire
from toolhost.permissions.callers.identity import Caller, as_caller
from toolhost.serve.base import (
    Handler,
    cancelled_id,
    error_response,
    is_notification,
    is_request,
    is_response,
)
from toolhost.serve.budget import Budget, Reservation
from toolhost.serve.headers import SESSION_HEADER, request_version
from toolhost.serve.http_access import note_message
from toolhost.serve.http_exchange import Exchange
from toolhost.serve.http_limits import JsonAnswer, read_body
from toolhost.serve.http_post_checks import (
    accepts,
    header_refusal,
    media_refusal,
    refusal,
    shutting_down,
)
from toolhost.serve.http_sessions import LegacySessions
from toolhost.serve.http_shares import Shares
from toolhost.serve.http_state import InFlight, Session
from toolhost.serve.http_streams import Streams
from toolhost.serve.listen_request import MAX_LISTEN_BYTES
from toolhost.serve.session_table import holder_of
from toolhost.serve.sessions import owner_of

__all__ = ["Poster", "shutting_down"]

log = logging.getLogger("toolhost.serve")


class Poster:
    """Answers the POSTs of one server."""

    def __init__(self, handler: Handler, limits: Limits, sessions: LegacySessions,
                 streams: Streams, in_flight: InFlight) -> None:
        self._handler = handler
        self._limits = limits
        self._sessions = sessions
        self._streams = streams
        self._in_flight = in_flight
        # whether a request is refused now (shutting down); None: never. Only requests
        # are: an answer to the server's question or a cancellation starts nothing, and a
        # call still running may be waiting for it
        self.refuses: Callable[[Mapping[str, Any]], bool] | None = None
        # Message bytes of every request being answered: sessions cost a client nothing, so
        # only a bound on the whole replica bounds its memory (each session also has a
        # bound on its requests: Session.budget)
        self._budget = Budget(None, limits.max_in_flight_bytes, scope="by this server",
                              flags="toolhost serve --max-in-flight-bytes")
        # each client's share of the connections answers hold (http_shares)
        self.shares = Shares(limits.max_connections, streams.held_by)

    async def post(self, request: Request, caller: Caller | None = None) -> Response:
        json_ok, sse_ok = accepts(request)
        refused = media_refusal(request, (json_ok, sse_ok))
        if refused is not None:
            return refused
        # the body's bytes count against --max-in-flight-bytes while they arrive, and until
        # the request is counted in (or answered without running)
        reservation = Reservation(self._budget)
        found: list[Session] = []  # the session the request names, once found
        try:
            return await self._post_body(request, caller, reservation, json_ok, sse_ok, found)
        finally:
            reservation.release()
            # a session served without being kept is forgotten once none of its requests
            # is being answered: also after a notification, or a request refused before it
            # was counted in (each left one behind for good, so a client pairing
            # initialize and notifications/initialized grew the server without bound)
            for session in found:
                if not session.kept:
                    self._sessions.done_unkept(session)

    async def _post_body(self, request: Request, caller: Caller | None,
                         reservation: Reservation, json_ok: bool, sse_ok: bool,
                         found: list[Session]) -> Response:
        body = await read_body(request, self._limits, reservation)
        if isinstance(body, Response):
            return body
        try:
            message = wire.decode(body, self._limits)
        except wire.WireError as exc:
            return JsonAnswer(exc.response(), status_code=400)
        if not isinstance(message, dict):
            return refusal(None, "Invalid Request: expected one JSON-RPC object (batches are "
                           "not supported)")
        note_message(request.scope, message)
        request_id = message.get("id")
        if "id" in message and not rpc.is_valid_id(request_id):
            return refusal(None, "Invalid Request: 'id' must be a string or a number")
        if not (is_request(message) or is_notification(message) or is_response(message)):
            return refusal(request_id, "Invalid Request: no 'method'")
        modern = request_version(message) is not None
        session: Session | None = None
        session_id = request.headers.get(SESSION_HEADER)
        refused = header_refusal(message, request, getattr(self._handler, "param_fields", None))
        if refused is not None:
            return refused
        if not modern and session_id is not None and message.get("method") != "initialize":
            session = self._sessions.find(session_id, owner_of(caller), unkept=True,
                                          caller=caller, holder=holder_of(
                                              owner_of(caller), request.scope.get("client")))
            if session is None:
                return refusal(request_id, f"unknown session {cut(session_id, 64)}", 404)
            found.append(session)
        if not modern and session_id is not None and message.get("method") == "initialize" \
                and is_request(message):
            # A handshake belongs to a new session: one sent inside a session would start a
            # second beside it (a stdio connection refuses a second initialize as well). An
            # id that names no session is 404, as for every request: the client drops it
            # and initializes without it (the spec's rule after a 404)
            if not self._sessions.live(session_id, owner_of(caller), caller=caller):
                return refusal(request_id, f"unknown session {cut(session_id, 64)}", 404)
            return refusal(request_id, "Invalid Request: the Mcp-Session-Id header names "
                           "a session that is initialized already; POST initialize without "
                           "the Mcp-Session-Id header to start a new session")
        if is_request(message) and self.refuses is not None and self.refuses(message):
            return shutting_down(request_id)
        if not is_request(message):
            why = await self._notification(message, session, session_id, caller)
            if why is not None:  # an answer nothing waits for: said, never dropped
                log.info("refused a client's answer: %s", why)
                return refusal(None, f"Invalid Request: {why}", 409)
            return Response(status_code=202)
        headers: dict[str, str] = {}
        if message.get("method") == "initialize" and not modern:
            params = message.get("params")
            params = params if isinstance(params, Mapping) else {}
            owner = owner_of(caller)
            session_id, session = self._sessions.start(
                params.get("protocolVersion"), params.get("capabilities"), owner,
                holder_of(owner, request.scope.get("client")))
            found.append(session)
            headers[SESSION_HEADER] = session_id
        if message.get("method") == "subscriptions/listen" and len(body) > MAX_LISTEN_BYTES:
            # a stream that lives as long as its client: its request stays small
            return JsonAnswer(error_response(
                request_id, rpc.INVALID_PARAMS, f"Invalid params: a subscriptions/listen "
                f"request is at most {MAX_LISTEN_BYTES:,} bytes; this one is {len(body):,}"))
        reservation.release()  # nothing awaits before take counts the same bytes in
        counted_in = self._take(session, request_id, len(body))
        if isinstance(counted_in, Response):
            return counted_in
        share = self.shares.take(holder_of(owner_of(caller), request.scope.get("client")),
                                 request_id,
                                 count=message.get("method") != "subscriptions/listen")
        if isinstance(share, dict):
            counted_in()
            return JsonAnswer(share)

        def release() -> None:
            share()
            counted_in()
        kept = session is not None and session.kept
        stream = None
        if message.get("method") == "subscriptions/listen":
            stream = self._streams.open(
                session if kept else None, expires=getattr(caller, "expires", math.inf),
                holder=holder_of(owner_of(caller), request.scope.get("client")))
            if stream is None:
                release()
                return JsonAnswer(error_response(request_id, rpc.SERVER_BUSY,
                                                 self._streams.busy()))
        # What a client sets for itself (subscriptions, log level) is kept under its session
        # id; a request without a session is a client of its own, forgotten once answered
        peer: Hashable = session_id if kept else object()
        forget = getattr(self._handler, "forget_peer", None)
        if forget is not None:
            counted = release

            def release() -> None:
                counted()
                # a session ended (DELETE) while this request ran had its settings
                # forgotten then: what the request set since (a subscription whose
                # permission check was still running) goes too, unless its id came back
                # as a session again meanwhile (an evicted one is revived by its id)
                if not kept or (session is not None and session.gone
                                and peer not in self._sessions.table):
                    forget(peer)
        return Exchange(self._handler, message, session, modern, headers, self._in_flight,
                        caller, json_ok=json_ok, sse_ok=sse_ok, release=release, peer=peer,
                        stream=stream, streams=self._streams,
                        write_timeout=self._limits.write_timeout)

    async def _notification(self, message: dict[str, Any], session: Session | None,
                            session_id: str | None, caller: Caller | None) -> str | None:
        """A client's answer (to an ask, ``ctx.elicit``) or notification: nobody waits for
        what it is answered. An answer that reaches no question waiting for it (the call
        that asked was cancelled or over, it was answered already, or was never asked):
        why, for a refusal the client can tell from a taken answer."""
        if is_response(message):
            if session is None:
                return ("the server asks questions only within a session (Mcp-Session-Id); "
                        "this answer names none")
            return await session.pending.deliver(message)
        target = cancelled_id(message)
        if (message.get("method") == "notifications/cancelled" and session is not None
                and rpc.is_valid_id(target)):
            scope = session.running.get(target)
            if scope is not None:
                scope.cancel()
        try:
            with as_caller(caller):
                await self._handler.handle(message, peer=session_id if session is not None
                                           and session.kept else None)
        except Exception as exc:  # nobody waits for a notification's answer
            log_failure(log, "a notification", exc)
        return None

    def _take(self, session: Session | None, request_id: Any, size: int
              ) -> Callable[[], None] | Response:
        """Count a request into its session's budget and the server's; the answer refusing
        it when either is full (a JSON-RPC error naming the limit), else what gives it back."""
        if session is not None and request_id in session.taken:
            log.warning("refused request %s: its session is answering one with that id",
                        cut(repr(request_id), 60))
            return JsonAnswer(error_response(
                request_id, -32600, f"Invalid Request: id {cut(repr(request_id), 100)} is "
                "already in use by a request of this session being answered"))
        budget = session.budget if session is not None else None
        if budget is not None and not budget.take(size):
            log.warning("refused request %s: its session has %d in flight",
                        cut(repr(request_id), 60), budget.count)
            return JsonAnswer(budget.refusal(request_id))
        if not self._budget.take(size):
            if budget is not None:
                budget.give_back(size)
            log.warning("refused request %s: %s bytes in flight", cut(repr(request_id), 60),
                        f"{self._budget.held:,}")
            return JsonAnswer(self._budget.refusal(request_id))

        if session is not None:
            session.taken.add(request_id)

        def release() -> None:
            self._budget.give_back(size)
            if budget is not None:
                budget.give_back(size)
            if session is not None:
                session.taken.discard(request_id)
                if not session.kept:
                    self._sessions.done_unkept(session)
        return release
