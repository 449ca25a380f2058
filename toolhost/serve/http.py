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

The parts: ``http_gate`` (Host, Origin, tokens), ``http_post`` (a POST),
``http_sessions`` (legacy sessions, ``DELETE``), ``http_streams`` (``GET`` and listen
streams), ``http_exchange`` (one request's response), ``http_limits`` (bodies, heads,
connections), ``http_protocol`` and ``http_heads`` (the connection, and heads refused before
they are parsed), ``http_uvicorn`` (running it, shutting down).
"""

from __future__ import annotations

import logging
import math
import socket
from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from toolhost.excerpt import cut
from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.tasks import TaskStore
from toolhost.serve.base import Handler, error_response
from toolhost.serve.headers import (
    SESSION_HEADER,
    accepted,
    repeated_header,
    unsupported_version_header,
)
from toolhost.serve.http_access import AccessLog, note
from toolhost.serve.http_cors import Cors
from toolhost.serve.http_gate import Gate
from toolhost.serve.http_limits import JsonAnswer
from toolhost.serve.http_origin_form import origin_form
from toolhost.serve.http_post import Poster, shutting_down
from toolhost.serve.http_sessions import LegacySessions
from toolhost.serve.http_state import InFlight
from toolhost.serve.http_streams import GET_QUEUE, NotificationStream, Streams
from toolhost.serve.metrics import CONTENT_TYPE, Metrics
from toolhost.serve.session_table import SessionsFull, holder_of
from toolhost.serve.sessions import SessionTokens, owner_of


async def _http_error(request: Request, exc: Exception) -> Response:
    """A path or method nothing here serves (404, 405): a JSON-RPC error, as every other
    answer, instead of Starlette's plain text."""
    status = getattr(exc, "status_code", 500)
    phrase = getattr(exc, "detail", "") or "Error"
    where = f"{request.method} {cut(request.url.path, 100)}"
    hint = f" (MCP is served at POST {request.app.state.mcp_path})" \
        if hasattr(request.app.state, "mcp_path") else ""
    return JsonAnswer(error_response(None, -32600, f"{phrase}: {where}{hint}"),
                      status_code=status, headers=getattr(exc, "headers", None))

__all__ = ["HttpServer"]

TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")

log = logging.getLogger("toolhost.serve")


class HttpServer:
    """An ASGI app serving ``handler`` at ``path``; ``broadcast`` reaches legacy streams."""

    def __init__(self, handler: Handler, *, path: str = "/mcp", token: str | None = None,
                 allowed_origins: tuple[str, ...] = (), allowed_hosts: tuple[str, ...] = (),
                 bind: str = "127.0.0.1", limits: Limits = DEFAULT_LIMITS,
                 on_shutdown: Callable[[], None] | None = None,
                 sessions: SessionTokens | None = None,
                 shutdown_grace: float = 10.0, auth: Any = None, metrics: bool = False
                 ) -> None:
        self.grace = shutdown_grace
        self.ready = True  # /readyz: False once shutting down
        self._refusing = False  # new requests answered 503 (the end of a shutdown)
        self.in_flight = InFlight()
        # tasks a shutdown waits for, whose tasks/get is answered while it refuses the rest
        self.tasks: TaskStore | None = getattr(handler, "tasks", None)
        self.limits = limits
        self.path = path
        self._on_shutdown = on_shutdown
        self._gate = Gate(path=path, bind=bind, token=token, allowed_origins=allowed_origins,
                          allowed_hosts=allowed_hosts, auth=auth)
        room = getattr(handler, "make_room_for_peers", None)
        if room is not None:  # the core keeps settings of every session kept here
            room(limits.max_sessions + limits.max_connections)
        self.sessions = LegacySessions(sessions or SessionTokens.from_environ(), limits,
                                       getattr(handler, "forget_peer", None))
        holders = getattr(handler, "hold_peers_by", None)
        if holders is not None:  # a client's sessions count as one in the subscription budget
            holders(self.sessions.table.holder)
        # GET and listen streams: half of the connections at most, a few per session
        self.streams = Streams(max(1, limits.max_connections // 2))
        self._poster = Poster(handler, limits, self.sessions, self.streams, self.in_flight)
        self._poster.refuses = self._refuses
        self.metrics = self._metrics(handler) if metrics else None
        routes = Starlette(routes=[
            Route(path, self._endpoint, methods=["GET", "POST", "DELETE"]),
            Route("/healthz", self._healthz, methods=["GET", "HEAD"]),
            Route("/readyz", self._readyz, methods=["GET", "HEAD"]),
            Route("/.well-known/oauth-protected-resource", self._resource_metadata,
                  methods=["GET"]),
            Route(f"/.well-known/oauth-protected-resource{path}", self._resource_metadata,
                  methods=["GET"]),
            *([Route("/metrics", self._scrape, methods=["GET"])] if metrics else []),
        ], exception_handlers={HTTPException: _http_error})
        routes.state.mcp_path = path
        # No 307 from /mcp/ to /mcp: Starlette wrote the redirect from the request's Host
        # header before anything checked it (Location: http://evil.example/mcp, no token
        # asked); a path served nowhere is 404, whatever its slashes
        routes.router.redirect_slashes = False
        # browser pages of accepted origins: preflights, and the origin named in answers
        # one access line per request (toolhost.serve.http_access), after its path is read
        self.app = origin_form(AccessLog(Cors(routes, path, self._gate.cors_allowed,
                                              self._gate.host_refusal), self.metrics))

    async def broadcast(self, message: Mapping[str, Any],
                        peers: Collection[Hashable] | None = None) -> None:
        """Send a server notification to the open legacy ``GET`` streams: of the sessions
        whose ids ``peers`` names (a resource's subscribers), or of every session."""
        self.sessions.offer(message, peers)

    def refuse_new(self) -> None:
        """From now on (shutting down) a new request is answered 503, ``Retry-After: 1``."""
        self._refusing = True

    def close(self) -> None:
        """End every legacy ``GET`` stream and listen stream (on shutdown)."""
        self.ready = False
        if self._on_shutdown is not None:
            self._on_shutdown()
        self.sessions.close_streams()

    async def serve(self, host: str, port: int,
                    sockets: list[socket.socket] | None = None) -> None:
        """Run uvicorn on ``host:port`` (0 picks a free port) until cancelled or signalled;
        on ``sockets`` bound beforehand when given (``toolhost.serve.listen``)."""
        from toolhost.serve.http_uvicorn import run_uvicorn
        from toolhost.serve.listen import bind_sockets

        try:
            await run_uvicorn(self, sockets if sockets is not None
                              else bind_sockets(host, port))
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

    def _metrics(self, handler: Handler) -> Metrics:
        """The Prometheus metrics (``--metrics``): counted by the access middleware and the
        served server's calls, the gauges read from this server when scraped."""
        metrics = Metrics()
        if hasattr(handler, "metrics"):
            handler.metrics = metrics
        metrics.gauge("toolhost_requests_in_flight", "MCP requests being answered",
                      lambda: self.in_flight.count)
        metrics.gauge("toolhost_sessions", "2025-revision sessions kept",
                      lambda: len(self.sessions.table))
        metrics.gauge("toolhost_streams_open", "GET and listen streams open",
                      lambda: self.streams.count)
        if self.tasks is not None:
            metrics.gauge("toolhost_tasks", "tasks kept, by status", self.tasks.by_status,
                          ("status",))
        return metrics

    async def _scrape(self, request: Request) -> Response:
        """``GET /metrics`` (``--metrics``): behind the checks of the MCP endpoint (Host,
        Origin, the bearer token or an OAuth access token)."""
        refusal = self._gate.refusal(request)
        if refusal is not None:
            return refusal
        caller = await self._gate.caller(request)
        if isinstance(caller, Response):
            return caller
        assert self.metrics is not None  # the route exists with them only
        return Response(await self.metrics.scrape(), media_type=CONTENT_TYPE)

    async def _resource_metadata(self, request: Request) -> Response:
        return self._gate.resource_metadata(request)

    # -- the one endpoint -------------------------------------------------------------------

    async def _endpoint(self, request: Request) -> Response:
        refusal = self._gate.refusal(request)
        if refusal is not None:
            return refusal
        if request.method not in ("GET", "POST", "DELETE"):
            # Starlette serves HEAD wherever GET is: a HEAD with a body was run as a POST
            # (a tool called by a method that must change nothing, its answer never shown)
            return JsonAnswer(error_response(None, -32600, f"Method Not Allowed: "
                                             f"{cut(request.method, 20)} {self.path} (MCP "
                                             "takes POST, GET and DELETE)"), status_code=405,
                              headers={"allow": "GET, POST, DELETE"})
        if self._refusing and request.method != "POST":
            # shutting down: a clean answer the client can retry elsewhere (a POST's
            # message is judged once read: Poster.refuses)
            return shutting_down(None)
        repeated = repeated_header(request.headers.raw)
        if repeated is not None:
            return JsonAnswer(error_response(None, -32600, f"Bad Request: send one {repeated} "
                                             "header; which of two counts is not guessed"),
                              status_code=400)
        # a POST's is judged with its body (toolhost.serve.http_post): its id, and a modern
        # body's own version, make the answer
        unsupported = (unsupported_version_header(request.headers)
                       if request.method != "POST" else None)
        if unsupported is not None:
            return JsonAnswer(error_response(None, -32600, unsupported), status_code=400)
        caller = await self._gate.caller(request)
        if isinstance(caller, Response):
            return caller
        if caller is not None:
            note(request.scope, caller=caller.subject)
        try:
            if request.method == "GET":
                return await self._get_stream(request, owner_of(caller), caller)
            if request.method == "DELETE":
                return self.sessions.end(request.headers.get(SESSION_HEADER), owner_of(caller),
                                         caller=caller)
            return await self._poster.post(request, caller)
        except SessionsFull as full:  # a new session, and every kept one is in use
            return JsonAnswer(full.answer(), status_code=503, headers={"retry-after": "5"})

    def _refuses(self, message: Mapping[str, Any]) -> bool:
        """Whether a request is refused now: every new one once the shutdown refuses them,
        but for the tasks methods about a task kept here (its poller still reads how it
        ended; ``toolhost.serve.shutdown``)."""
        if not self._refusing:
            return False
        params = message.get("params")
        task_id = params.get("taskId") if isinstance(params, Mapping) else None
        return not (message.get("method") in TASK_METHODS and isinstance(task_id, str)
                    and self.tasks is not None and self.tasks.keeps(task_id))

    async def _get_stream(self, request: Request, owner: str = "", caller: Any = None
                          ) -> Response:
        if not accepted(request.headers.get("accept"))[1]:
            return JsonAnswer(error_response(
                None, -32600, "Not Acceptable: a GET stream is text/event-stream"),
                status_code=406)
        session_id = request.headers.get(SESSION_HEADER)
        session = (self.sessions.find(session_id, owner, caller=caller,
                                      holder=holder_of(owner, request.scope.get("client")))
                   if session_id is not None else None)
        if session is None and session_id is not None:  # ended, expired or never ours
            return JsonAnswer(error_response(None, -32600,
                                             f"unknown session {cut(session_id, 64)}"),
                              status_code=404)
        if session is None:
            # Modern clients subscribe with subscriptions/listen on POST instead.
            return JsonAnswer(error_response(
                None, -32600, "Method Not Allowed: GET streams exist for initialize-era "
                "sessions only; send Mcp-Session-Id"), status_code=405,
                headers={"allow": "POST"})
        holder = holder_of(owner, request.scope.get("client"))
        refused = self._poster.shares.take(holder, None, count=False)
        if isinstance(refused, dict):  # its share is held by its calls and streams
            return JsonAnswer(refused, status_code=503, headers={"retry-after": "5"})
        stream = self.streams.open(session, queue=GET_QUEUE,
                                   expires=getattr(caller, "expires", math.inf),
                                   holder=holder)
        if stream is None:
            return JsonAnswer(error_response(None, rpc.SERVER_BUSY, self.streams.busy()),
                              status_code=503, headers={"retry-after": "5"})
        return NotificationStream(session, stream, self.streams)
