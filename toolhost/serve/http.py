"""MCP Streamable HTTP on starlette + uvicorn (the ``toolhost[serve]`` extra).

``POST /mcp`` carries one JSON-RPC message. A request is answered with ``application/json``,
or with ``text/event-stream`` as soon as the call sends a notification (progress): the
notifications, then the answer, as SSE ``message`` events. Closing the response cancels the
call (the 2026-07-28 spelling of cancellation).

Eras: a request whose ``params._meta`` names a protocol version is modern and stateless:
nothing about it is remembered, so replicas behind a load balancer can serve any request.
Legacy clients get an ``Mcp-Session-Id`` on ``initialize``; the session only holds what the
legacy wire needs: the ``GET /mcp`` stream for server notifications (``tools/list_changed``)
and the ids of running calls for ``notifications/cancelled``.
"""

from __future__ import annotations

import hmac
import logging
import socket
import sys
import time
from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any
from urllib.parse import urlsplit

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp import wire
from toolhost.permissions.caller import Caller, as_caller
from toolhost.serve.base import (
    Handler,
    cancelled_id,
    error_response,
    is_notification,
    is_request,
    is_response,
)
from toolhost.serve.budget import Budget, Reservation
from toolhost.serve.headers import (
    HEADER_MISMATCH,
    SESSION_HEADER,
    accepted,
    header_mismatch,
    is_json_content_type,
    legacy_body_mismatch,
    request_version,
    unsupported_version_header,
)
from toolhost.serve.http_exchange import Exchange, InFlight, Session
from toolhost.serve.http_limits import (
    FD_HEADROOM,
    HostCheck,
    JsonAnswer,
    header_deadline_protocol,
    raise_fd_limit,
    read_body,
)
from toolhost.serve.http_streams import GET_QUEUE, NotificationStream, Streams
from toolhost.serve.listen_request import MAX_LISTEN_BYTES
from toolhost.serve.session_table import SessionsFull, SessionTable
from toolhost.serve.sessions import EndedSessions, SessionTokens, owner_of, same_owner
from toolhost.serve.shutdown import drain

__all__ = ["HttpServer"]

log = logging.getLogger("toolhost.serve")

LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]"}


class HttpServer:
    """An ASGI app serving ``handler`` at ``path``; ``broadcast`` reaches legacy streams."""

    def __init__(self, handler: Handler, *, path: str = "/mcp", token: str | None = None,
                 allowed_origins: tuple[str, ...] = (), allowed_hosts: tuple[str, ...] = (),
                 bind: str = "127.0.0.1", limits: Limits = DEFAULT_LIMITS,
                 on_shutdown: Callable[[], None] | None = None,
                 sessions: SessionTokens | None = None,
                 shutdown_grace: float = 10.0, auth: Any = None) -> None:
        self._handler = handler
        self._auth = auth  # toolhost.serve.auth.JwtAuth: OAuth access tokens
        self._tokens = sessions or SessionTokens.from_environ()
        self._grace = shutdown_grace
        self.ready = True  # /readyz: False once shutting down
        self._refusing = False  # new requests answered 503 (the end of a shutdown)
        self.in_flight = InFlight()
        self._limits = limits
        self._hosts = HostCheck(bind, allowed_hosts)
        self._on_shutdown = on_shutdown
        self._token = token
        self._allowed_origins = set(allowed_origins)
        # Sessions kept here (--max-sessions): an evicted idle one comes back from its signed
        # id, without the settings it made (forgotten with it)
        forget = getattr(handler, "forget_peer", None)
        room = getattr(handler, "make_room_for_peers", None)
        if room is not None:  # the core keeps settings of every session kept here
            room(limits.max_sessions + limits.max_connections)
        self._sessions = SessionTable(limits.max_sessions, limits.session_idle, forget)
        self._ended = EndedSessions()  # ids DELETEd here: 404 until they expire
        # GET and listen streams: half of the connections at most, a few per session
        self._streams = Streams(max(1, limits.max_connections // 2))
        # Message bytes of every request being answered: sessions cost a client nothing, so
        # only a bound on the whole replica bounds its memory (each session also has a
        # bound on its requests: Session.budget)
        self._budget = Budget(None, limits.max_in_flight_bytes, scope="by this server",
                              flags="toolhost serve --max-in-flight-bytes")
        self.path = path
        self.app = Starlette(routes=[
            Route(path, self._endpoint, methods=["GET", "POST", "DELETE"]),
            Route("/healthz", self._healthz, methods=["GET", "HEAD"]),
            Route("/readyz", self._readyz, methods=["GET", "HEAD"]),
            Route("/.well-known/oauth-protected-resource", self._resource_metadata,
                  methods=["GET"]),
            Route(f"/.well-known/oauth-protected-resource{path}", self._resource_metadata,
                  methods=["GET"]),
        ])

    async def broadcast(self, message: Mapping[str, Any],
                        peers: Collection[Hashable] | None = None) -> None:
        """Send a server notification to the open legacy ``GET`` streams: of the sessions
        whose ids ``peers`` names (a resource's subscribers), or of every session."""
        for session_id, session in list(self._sessions.items()):
            if peers is not None and session_id not in peers:
                continue
            for stream in list(session.streams):
                stream.offer(dict(message))  # never waits: one that falls behind is dropped

    def refuse_new(self) -> None:
        """From now on (shutting down) a new request is answered 503, ``Retry-After: 1``."""
        self._refusing = True

    def close(self) -> None:
        """End every legacy ``GET`` stream and listen stream (on shutdown)."""
        self.ready = False
        if self._on_shutdown is not None:
            self._on_shutdown()
        for session in self._sessions.values():
            for stream in session.streams:
                stream.close()
            session.streams.clear()

    async def serve(self, host: str, port: int,
                    sockets: list[socket.socket] | None = None) -> None:
        """Run uvicorn on ``host:port`` (0 picks a free port) until cancelled or signalled;
        on ``sockets`` bound beforehand when given (``toolhost.serve.listen``)."""
        import uvicorn

        from toolhost.serve.listen import bind_sockets

        if sockets is None:
            sockets = bind_sockets(host, port)

        limits = self._limits
        # log_config=None: uvicorn's records (an error, a traceback) go through toolhost's
        # handler and format (TOOLHOST_LOG_FORMAT=json), not a handler of its own
        connections = raise_fd_limit(limits.max_connections)
        # streams keep at most half of the connections served (fewer when files are short)
        self._streams.limit = max(1, min(self._streams.limit, connections // 2))
        # connections past the limit are refused as they open (header_deadline_protocol);
        # uvicorn's own limit (requests answered 503) only backs that up
        config = uvicorn.Config(self.app, host=host, port=port, log_level="warning",
                                log_config=None,
                                lifespan="off", timeout_graceful_shutdown=2,
                                limit_concurrency=connections + 1,
                                # asyncio accepts up to a backlog of connections each time
                                # the socket is ready, before any can be refused: a few
                                # such bursts must fit in the headroom
                                backlog=FD_HEADROOM // 4,
                                http=header_deadline_protocol(limits.header_timeout,
                                                              connections))
        owner = self

        class _Server(uvicorn.Server):
            async def shutdown(self, sockets: Any = None) -> None:
                # Calls in flight finish first (within the grace period), while the legacy
                # GET streams stay open: a client whose stream closed would reconnect, fail,
                # and drop its calls. Then the streams that never end by themselves.
                owner.ready = False
                log.warning("shutting down: waiting up to %g s for %d call(s) in flight",
                            owner._grace, owner.in_flight.count)
                # accepting while calls come, then refusing new ones (503), then cancelling
                # what outlives the grace, each answered (toolhost.serve.shutdown)
                await drain(owner.in_flight, owner._grace, owner.refuse_new)
                owner.close()
                await super().shutdown(sockets)

        server = _Server(config)

        async def announce() -> None:
            while not server.started:
                await anyio.sleep(0.05)
            for sock in (s for srv in server.servers for s in srv.sockets):
                bound_host, bound_port = sock.getsockname()[:2]
                print(f"toolhost: serving MCP on http://{bound_host}:{bound_port}{self.path}",
                      file=sys.stderr, flush=True)

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(announce)
                await server.serve(sockets=sockets)
                tg.cancel_scope.cancel()
        finally:
            self.close()

    # -- probes (no token, Host or Origin check: they say nothing but up / ready) --------------

    async def _healthz(self, request: Request) -> Response:
        return Response(b'{"status":"ok"}\n', media_type="application/json")

    async def _readyz(self, request: Request) -> Response:
        if not self.ready:
            return Response(b'{"status":"shutting down"}\n', status_code=503,
                            media_type="application/json")
        return Response(b'{"status":"ready"}\n', media_type="application/json")

    async def _resource_metadata(self, request: Request) -> Response:
        if self._auth is None:
            return Response(status_code=404)
        resource = str(request.base_url).rstrip("/") + self.path
        return JsonAnswer(self._auth.resource_metadata(resource))

    async def _authenticate(self, request: Request) -> Caller | Response:
        from toolhost.serve.auth import AuthError

        try:
            caller: Caller = await self._auth.authenticate(request.headers.get("authorization"))
        except AuthError as exc:
            metadata = (str(request.base_url).rstrip("/")
                        + "/.well-known/oauth-protected-resource" + self.path)
            given = "authorization" in request.headers
            challenge = f'Bearer resource_metadata="{metadata}"'
            log.info("refused a request: %s", exc)
            if exc.status == 503:  # the issuer's keys cannot be fetched: not the token's fault
                return JsonAnswer(error_response(None, -32000, f"Service unavailable: {exc}"),
                                  status_code=503, headers={"retry-after": "5"})
            if given:
                # printable ASCII only: a token's own text must not shape our header
                reason = "".join(c if " " <= c <= "~" and c not in '"\\' else "?"
                                 for c in str(exc))[:200]
                challenge += f', error="invalid_token", error_description="{reason}"'
            return JsonAnswer(error_response(None, -32600, f"Unauthorized: {exc}"),
                              status_code=exc.status, headers={"www-authenticate": challenge})
        return caller

    # -- sessions of the 2025 revisions ---------------------------------------------------------

    def _session(self, session_id: str, owner: str = "") -> Session | None:
        """The session an id names: known here, or signed by a replica (toolhost.serve.sessions),
        and started by the caller ``owner`` names (``owner_of``): for anyone else it is unknown."""
        session = self._sessions.get(session_id)
        if session is not None:
            if not same_owner(session.owner, owner):
                self._not_theirs(session_id)
                return None
            if session.expires >= time.time():
                return session
            # expired: unknown on every replica, also one that holds it (its streams close)
            self._sessions.pop(session_id)
            for stream in session.streams:
                stream.close()
            session.streams.clear()
            return None
        if session_id in self._ended:  # its signature is still good, but it was ended here
            return None
        claims = self._tokens.check(session_id)
        if claims is None:
            return None
        if not same_owner(claims.owner, owner):
            self._not_theirs(session_id)
            return None
        return self._remember(session_id, Session(capabilities=claims.capabilities,
                                                  expires=claims.expires, owner=claims.owner))

    @staticmethod
    def _not_theirs(session_id: str) -> None:
        log.warning("refused session %s: another caller started it", cut(session_id, 12))

    def _remember(self, session_id: str, session: Session) -> Session:
        """Keep a new session; raises SessionsFull when every session kept is in use."""
        session.budget = Budget(self._limits.max_in_flight, None, scope="in this session",
                                flags="toolhost serve --max-in-flight")
        return self._sessions.add(session_id, session)

    # -- the one endpoint -------------------------------------------------------------------

    async def _endpoint(self, request: Request) -> Response:
        # Returned by the routes machinery only when we did not already answer via ASGI.
        refusal = self._refuse(request)
        if refusal is not None:
            return refusal
        if self._refusing:  # shutting down: a clean answer the client can retry elsewhere
            return JsonAnswer(error_response(None, -32000, "Server shutting down; retry on "
                                             "another replica"), status_code=503,
                              headers={"retry-after": "1", "connection": "close"})
        unsupported = unsupported_version_header(request.headers)
        if unsupported is not None:
            return JsonAnswer(error_response(None, -32600, unsupported), status_code=400)
        caller = None
        if self._auth is not None:
            checked = await self._authenticate(request)
            if isinstance(checked, Response):
                return checked
            caller = checked
        try:
            if request.method == "GET":
                return await self._get_stream(request, owner_of(caller))
            if request.method == "DELETE":
                return self._delete(request.headers.get(SESSION_HEADER), owner_of(caller))
            return await self._post(request, caller)
        except SessionsFull as full:  # a new session, and every kept one is in use
            return JsonAnswer(full.answer(), status_code=503, headers={"retry-after": "5"})

    def _delete(self, session_id: str | None, owner: str = "") -> Response:
        """End a legacy session on this replica: its id is answered 404 from now on (until
        it expires) and its GET streams close. Calls it has running finish. Only the caller
        that started it (``owner``) may end it: for anyone else it is unknown."""
        if session_id is None:
            return JsonAnswer(error_response(None, -32600, "DELETE ends a session: send "
                                             "its Mcp-Session-Id"), status_code=400)
        claims = self._tokens.check(session_id) if session_id not in self._ended else None
        if claims is not None and not same_owner(claims.owner, owner):
            self._not_theirs(session_id)
            claims = None
        session = self._sessions.pop(session_id) if claims is not None else None
        if claims is None:
            return JsonAnswer(error_response(None, -32600,
                                             f"unknown session {cut(session_id, 64)}"),
                              status_code=404)
        self._ended.add(session_id, claims.expires)
        if session is not None:
            for stream in session.streams:
                stream.close()
            session.streams.clear()
        return Response(status_code=204)

    def _refuse(self, request: Request) -> Response | None:
        # DNS rebinding: a web page (or a name that resolves to us) must not reach a local
        # server, so both the Host it was addressed to and the page's Origin are checked.
        refusal = self._hosts.refusal(request.headers.get("host"))
        if refusal is not None:
            return refusal
        origin = request.headers.get("origin")
        if origin is not None:
            try:
                host = urlsplit(origin).hostname or ""
            except ValueError:
                host = ""
            if host not in LOOPBACK and origin not in self._allowed_origins:
                return JsonAnswer(error_response(
                    None, -32600, f"Forbidden: origin {cut(origin, 100)!r} is not allowed "
                    "(toolhost serve --allow-origin)"), status_code=403)
        if self._token is not None:
            scheme, _, given = request.headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                    given.strip().encode(), self._token.encode()):
                return JsonAnswer(error_response(None, -32600, "missing or wrong bearer token"),
                                    status_code=401,
                                    headers={"www-authenticate": 'Bearer realm="toolhost"'})
        return None

    async def _post(self, request: Request, caller: Caller | None = None) -> Response:
        if not is_json_content_type(request.headers.get("content-type")):
            return JsonAnswer(error_response(
                None, -32600, "Unsupported Media Type "
                f"{cut(request.headers['content-type'], 100)!r}: "
                "POST a JSON-RPC message as application/json"), status_code=415)
        json_ok, sse_ok = accepted(request.headers.get("accept"))
        if not (json_ok or sse_ok):
            return JsonAnswer(error_response(
                None, -32600, f"Not Acceptable: Accept {cut(request.headers['accept'], 100)!r}"
                " admits neither application/json nor text/event-stream"), status_code=406)
        # the body's bytes count against --max-in-flight-bytes while they arrive, and until
        # the request is counted in (or answered without running)
        reservation = Reservation(self._budget)
        try:
            return await self._post_body(request, caller, reservation, json_ok, sse_ok)
        finally:
            reservation.release()

    async def _post_body(self, request: Request, caller: Caller | None,
                         reservation: Reservation, json_ok: bool, sse_ok: bool) -> Response:
        body = await read_body(request, self._limits, reservation)
        if isinstance(body, Response):
            return body
        try:
            message = wire.decode(body, self._limits)
        except wire.WireError as exc:
            return JsonAnswer(exc.response(), status_code=400)
        if not isinstance(message, dict):
            return JsonAnswer(error_response(None, -32600, "Invalid Request: expected one "
                                               "JSON-RPC object (batches are not supported)"),
                                status_code=400)
        request_id = message.get("id")
        if "id" in message and not rpc.is_valid_id(request_id):
            return JsonAnswer(error_response(None, -32600, "Invalid Request: 'id' must be a "
                                               "string or a number"), status_code=400)
        if not (is_request(message) or is_notification(message) or is_response(message)):
            return JsonAnswer(error_response(request_id, -32600,
                                               "Invalid Request: no 'method'"), status_code=400)
        modern = request_version(message) is not None
        session: Session | None = None
        session_id = request.headers.get(SESSION_HEADER)
        # a request's headers must agree with its body (a notification or an answer of a
        # 2025 client carries no version of its own to compare)
        problem = (header_mismatch(message, request.headers) if modern
                   else legacy_body_mismatch(request.headers) if is_request(message) else None)
        if problem is not None:
            return JsonAnswer(error_response(request_id, HEADER_MISMATCH, problem),
                              status_code=400)
        if not modern and session_id is not None and message.get("method") != "initialize":
            session = self._session(session_id, owner_of(caller))
            if session is None:
                return JsonAnswer(error_response(request_id, -32600,
                                                   f"unknown session {cut(session_id, 64)}"),
                                    status_code=404)
        if is_response(message):
            if session is not None:
                session.pending.resolve(message)
            return Response(status_code=202)
        if not is_request(message):
            target = cancelled_id(message)
            if (message.get("method") == "notifications/cancelled" and session is not None
                    and rpc.is_valid_id(target)):
                scope = session.running.get(target)
                if scope is not None:
                    scope.cancel()
            if "method" in message:
                try:
                    with as_caller(caller):
                        await self._handler.handle(message, peer=session_id if session
                                                   is not None else None)
                except Exception as exc:  # nobody waits for a notification's answer
                    log_failure(log, "a notification", exc)
            return Response(status_code=202)
        headers: dict[str, str] = {}
        if message.get("method") == "initialize" and not modern:
            params = message.get("params")
            caps = params.get("capabilities") if isinstance(params, Mapping) else None
            caps = caps if isinstance(caps, Mapping) else {}
            version = params.get("protocolVersion") if isinstance(params, Mapping) else None
            owner = owner_of(caller)
            session_id = self._tokens.issue(version if isinstance(version, str) else "", caps,
                                            owner=owner)
            issued = self._tokens.check(session_id)
            session = self._remember(session_id, Session(
                capabilities=caps, expires=issued.expires if issued else 0.0, owner=owner))
            headers[SESSION_HEADER] = session_id
        if message.get("method") == "subscriptions/listen" and len(body) > MAX_LISTEN_BYTES:
            # a stream that lives as long as its client: its request stays small
            return JsonAnswer(error_response(
                request_id, rpc.INVALID_PARAMS, f"Invalid params: a subscriptions/listen "
                f"request is at most {MAX_LISTEN_BYTES:,} bytes; this one is {len(body):,}"))
        reservation.release()  # nothing awaits before take counts the same bytes in
        release = self._take(session, request_id, len(body))
        if isinstance(release, Response):
            return release
        stream = None
        if message.get("method") == "subscriptions/listen":
            stream = self._streams.open(session)
            if stream is None:
                release()
                return JsonAnswer(error_response(request_id, rpc.SERVER_BUSY,
                                                 self._streams.busy()))
        # What a client sets for itself (subscriptions, log level) is kept under its session
        # id; a request without a session is a client of its own, forgotten once answered
        peer: Hashable = session_id if session is not None else object()
        forget = getattr(self._handler, "forget_peer", None)
        if session is None and forget is not None:
            counted = release

            def release() -> None:
                counted()
                forget(peer)
        return Exchange(self._handler, message, session, modern, headers, self.in_flight, caller,
                        json_ok=json_ok, sse_ok=sse_ok, release=release, peer=peer,
                        stream=stream, streams=self._streams)

    def _take(self, session: Session | None, request_id: Any, size: int
              ) -> Callable[[], None] | Response:
        """Count a request into its session's budget and the server's; the answer refusing
        it when either is full (a JSON-RPC error naming the limit), else what gives it back."""
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

        def release() -> None:
            self._budget.give_back(size)
            if budget is not None:
                budget.give_back(size)
        return release

    async def _get_stream(self, request: Request, owner: str = "") -> Response:
        if not accepted(request.headers.get("accept"))[1]:
            return JsonAnswer(error_response(
                None, -32600, "Not Acceptable: a GET stream is text/event-stream"),
                status_code=406)
        session_id = request.headers.get(SESSION_HEADER)
        session = self._session(session_id, owner) if session_id is not None else None
        if session is None and session_id is not None:  # ended, expired or never ours
            return JsonAnswer(error_response(None, -32600,
                                             f"unknown session {cut(session_id, 64)}"),
                              status_code=404)
        if session is None:
            # Modern clients subscribe with subscriptions/listen on POST instead.
            return Response("GET streams exist for initialize-era sessions only; send "
                            "Mcp-Session-Id", status_code=405, headers={"allow": "POST"})
        stream = self._streams.open(session, queue=GET_QUEUE)
        if stream is None:
            return JsonAnswer(error_response(None, rpc.SERVER_BUSY, self._streams.busy()),
                              status_code=503, headers={"retry-after": "5"})
        return NotificationStream(session, stream, self._streams)
