"""One connection to an upstream MCP server, owned by a thread of its own.

The official ``mcp`` client keeps task groups open for the whole connection, and anyio wants a
task group closed by the task that opened it. So each upstream lives in a blocking portal
(a thread with its own event loop): one long-running task opens the client and holds it until
``close``; calls from any thread or event loop hop into the portal. That also lets the compile
step, which runs outside any event loop, list the upstream's tools synchronously.

A connection that dies (the process exits, the HTTP server goes away) is noticed by the call
that meets it; the call gets a clear error and the next call reconnects, waiting 1, 2, 4...
up to 30 seconds between attempts so a crashing upstream cannot be hammered. An HTTP upstream
that answers 404 to its session's id (it expired the session, or restarted without the GET
stream that would have told) has not run the request: as the MCP spec asks, a new session is
started at once and the request sent again, once.

The holder task also watches for the upstream's lists changing (``changes``): news of its tool
list goes to ``watch.tools``, of its resources or prompts to ``watch.content``; a reconnection
counts as a change of both (announcements may have been missed while the connection was
down). ``watch.updates`` subscribes upstream to what toolhost's clients subscribed to.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import importlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

import anyio
import anyio.from_thread

from toolhost.excerpt import cut
from toolhost.gateway.asks import refuse_asks
from toolhost.gateway.call_stop import CallStop
from toolhost.gateway.changes import ChangeWatch
from toolhost.gateway.client_open import open_client
from toolhost.gateway.elicit_pass import Asker, CallAsks
from toolhost.gateway.liblogs import describe_invalid
from toolhost.gateway.output_check import unchecked
from toolhost.gateway.sendable import unsendable
from toolhost.gateway.spec import UpstreamSpec
from toolhost.gateway.stderr import StderrLog
from toolhost.gateway.tool_pages import MAX_PAGES, MAX_TOOLS, list_all_tools
from toolhost.gateway.transport import Wire
from toolhost.gateway.upstream_errors import (
    SSE_ENDED,
    Broken,
    CallCancelled,
    SessionLost,
    TimedOut,
    UpstreamError,
    describe,
    is_invalid,
    is_protocol_error,
    unread_answer,
)

__all__ = ["DEFAULT_REQUEST_TIMEOUT", "MAX_BACKOFF", "MAX_PAGES", "MAX_TOOLS", "CallCancelled",
           "CallStop", "UpstreamConnection", "UpstreamError"]

log = logging.getLogger("toolhost.gateway")
T = TypeVar("T")
MAX_BACKOFF = 30.0
# a call, read or prompt of an upstream whose config sets no ``timeout``: long enough for slow
# tools, but an upstream that never answers cannot hold a request (and its thread) for ever
DEFAULT_REQUEST_TIMEOUT = 600.0


class UpstreamConnection:
    """A live (or reconnectable) client to one upstream, safe to use from any thread."""

    def __init__(self, spec: UpstreamSpec, server: str, *, after_outage: bool = False) -> None:
        """``after_outage``: its first connection counts as a reconnection (both lists are
        fetched again): an upstream that could not start and is retried."""
        self.spec = spec
        self.server = server
        self._lock = threading.Lock()
        self._portal_cm: Any = None
        self._portal: anyio.from_thread.BlockingPortal | None = None
        self._client: Any = None
        self._stop: anyio.Event | None = None
        self._done: threading.Event | None = None
        self._ready: threading.Event | None = None
        self._failures = 0
        self._next_try = 0.0
        self._closed = False
        self._connected_before = after_outage
        self._wire = Wire(server, spec.max_message_bytes)
        self.watch = ChangeWatch(server)  # its channels: ``tools`` and ``content``
        # the calls under way that may pass an elicitation on (the config opted in), or None
        self.asks = CallAsks() if spec.elicitation else None

    # -- public, synchronous -----------------------------------------------------------------

    @property
    def list_deadline(self) -> float:
        """Seconds one listing (every page of tools, resources, templates or prompts) may
        take: the ``connect_timeout`` (default 30 s), as the start waits for it."""
        return self.spec.connect_timeout

    @property
    def request_deadline(self) -> float:
        """Seconds one call, read or prompt may take: the ``timeout``, or
        DEFAULT_REQUEST_TIMEOUT when the config sets none."""
        return self.spec.timeout or DEFAULT_REQUEST_TIMEOUT

    def list_tools(self) -> list[dict[str, Any]]:
        """The upstream's tools as plain dicts (every page). UpstreamError if it cannot be
        listed within ``list_deadline`` (a broken connection is dropped: the next use
        reconnects)."""
        return self._again_if_lost(lambda portal: portal.call(self._list_tools))

    def call_tool(self, name: str, arguments: dict[str, Any],
                  timeout: float | None, asker: Asker | None = None,
                  stop: CallStop | None = None,
                  unsent: Callable[[], str] | None = None) -> dict[str, Any]:
        """One tools/call; the CallToolResult as a plain dict. UpstreamError if the
        connection is down (the next call reconnects) or no answer came within ``timeout``
        (None: ``request_deadline``). ``asker``: where an elicitation of the upstream during
        this call goes (toolhost.gateway.elicit_pass; only when the config passes it on).
        ``stop``: cancels the call from another thread (the upstream is sent
        ``notifications/cancelled``); this thread then gets ``CallCancelled``. ``unsent``:
        why the call is not to be sent after all, or "" (asked on the connection it would go
        out on, a new one too: an upstream started again may list other tools)."""
        cannot = unsendable(arguments)
        if cannot:  # (the mcp client would fail the whole connection writing it)
            return {"content": [{"type": "text", "text": (
                f"the call of {name!r} cannot be sent to upstream server '{self.server}': "
                f"{cannot}")}], "isError": True}

        def call(portal: anyio.from_thread.BlockingPortal) -> dict[str, Any]:
            why = unsent() if unsent is not None else ""
            if why:
                return {"content": [{"type": "text", "text": why}], "isError": True}
            try:
                future = portal.start_task_soon(self._call_tool, name, arguments, timeout,
                                                asker)
                if stop is not None:
                    stop.bind(future)
                try:
                    return cast("dict[str, Any]", future.result())
                except concurrent.futures.CancelledError:
                    raise CallCancelled(f"the call of {name!r} was cancelled") from None
            except (TimedOut, Broken, CallCancelled):
                raise  # (a cancelled call keeps the connection)
            except UpstreamError as exc:  # not connected: dropped like a broken one
                raise Broken(str(exc)) from None

        return self._again_if_lost(call)

    def run(self, operation: Callable[[Any], Awaitable[T]], timeout: float | None = None,
            what: str = "request", stop: CallStop | None = None) -> T:
        """``await operation(client)`` in the connection's thread (the upstream's resources
        and prompts use it), within ``timeout`` seconds (None: ``request_deadline``; a
        listing passes ``list_deadline``). UpstreamError when the connection is down, the
        upstream refuses or does not answer in time (a broken connection is dropped: the
        next use reconnects); ``what`` names the operation in that error. ``stop``: cancels
        it from another thread, as ``call_tool``'s (a resource read, a prompt get: the
        upstream is sent ``notifications/cancelled``); this thread then gets
        ``CallCancelled``."""
        def use(portal: anyio.from_thread.BlockingPortal) -> T:
            future = portal.start_task_soon(self._run, operation,
                                            timeout or self.request_deadline, what)
            if stop is not None:
                stop.bind(future)
            try:
                return cast("T", future.result())
            except concurrent.futures.CancelledError:
                raise CallCancelled(f"the {what} was cancelled") from None

        return self._again_if_lost(use)

    def _again_if_lost(self, use: Callable[[anyio.from_thread.BlockingPortal], T]) -> T:
        """``use(portal)``; a broken connection is dropped (the next use reconnects), and a
        session the upstream lost is started again at once and ``use`` run once more."""
        for attempt in (1, 2):
            portal = self._ensure()
            try:
                return use(portal)
            except SessionLost:
                self._drop()
                if attempt == 2:
                    raise
                log.warning("upstream server '%s' no longer knows its session (HTTP 404); "
                            "starting a new one and sending the request again", self.server)
            except Broken:
                self._drop()
                raise
        raise AssertionError("unreachable")

    async def _run(self, operation: Callable[[Any], Awaitable[T]], timeout: float,
                   what: str) -> T:
        client = self._client
        if client is None:
            raise UpstreamError(f"upstream server '{self.server}' is not connected")
        try:
            with anyio.fail_after(timeout):
                return await operation(client)
        except TimeoutError:
            raise TimedOut(f"upstream server '{self.server}' did not answer the {what} "
                                f"within {timeout:g}s") from None
        except Exception as exc:
            raise self._failed(exc, f"upstream server '{self.server}'") from None

    def close(self) -> None:
        """End the connection and the upstream process; idempotent. A start under way (a
        retry of an upstream that could not start) stops waiting for its answer."""
        self._closed = True
        starting = self._ready
        if starting is not None:
            starting.set()
        with self._lock:
            self._closed = True
            self._drop_locked()

    # -- the portal ---------------------------------------------------------------------------

    def _ensure(self) -> anyio.from_thread.BlockingPortal:
        with self._lock:
            if self._closed:
                raise UpstreamError(f"upstream server '{self.server}' is closed")
            if self._portal is not None and self._client is not None:
                return self._portal
            wait = self._next_try - time.monotonic()
            if wait > 0:
                raise UpstreamError(f"upstream server '{self.server}' is down; retrying in "
                                    f"{wait:.0f}s")
            try:
                self._connect_locked()
            except ImportError as exc:
                self._drop_locked()
                raise UpstreamError(f"importing MCP servers needs the mcp package ({exc}): "
                                    "pip install 'toolhost[gateway]'") from None
            except Exception as exc:
                self._failures += 1
                self._next_try = time.monotonic() + min(MAX_BACKOFF, 2.0 ** (self._failures - 1))
                self._drop_locked()
                # how its process ended, or how its HTTP connection broke, say more than
                # what the mcp client raised (Connection closed, All connection attempts...)
                said = self._ended() or self._wire.broke or self._status(describe(exc))
                raise UpstreamError(f"cannot start upstream server '{self.server}': {said}"
                                    ) from None
            self._failures = 0
            self._connected_before = True
            assert self._portal is not None
            return self._portal

    def _connect_locked(self) -> None:
        # the mcp package is imported before the clock starts: its import (about a second of
        # CPU) is the host's own start-up, not the upstream's answer that connect_timeout bounds
        for module in ("mcp.client.client",
                       "mcp.client.stdio" if self.spec.command else "httpx2"):
            importlib.import_module(module)
        self._portal_cm = anyio.from_thread.start_blocking_portal()
        self._portal = self._portal_cm.__enter__()
        self._ready = ready = threading.Event()
        self._done = threading.Event()
        failure: list[BaseException] = []
        self._portal.start_task_soon(self._hold, ready, failure, self._connected_before)
        if not ready.wait(self.spec.connect_timeout):
            raise TimeoutError(f"no answer within {self.spec.connect_timeout:g}s")
        if self._closed:
            raise UpstreamError("closed while starting")
        if failure:
            raise failure[0]

    async def _hold(self, ready: threading.Event, failure: list[BaseException],
                    again: bool) -> None:
        """The task that owns the client for the connection's whole life."""
        self._stop = anyio.Event()
        errlog = StderrLog(self.server) if self.spec.command else None
        self._wire = wire = Wire(self.server, self.spec.max_message_bytes)
        if errlog is not None:
            wire.last_words = errlog.tail
        try:
            async with open_client(self.spec, self.watch.on_message, errlog, wire) as client, \
                    anyio.create_task_group() as tasks:
                if errlog is not None:
                    errlog.spawned()
                unchecked(client)  # toolhost checks structuredContent (output_check)
                refuse_asks(client, self.server, self.asks)  # elicitation, sampling, roots
                self.watch.attach(tasks)
                tasks.start_soon(self.watch.listen, client)
                tasks.start_soon(self.watch.updates.keep, client)
                self._client = client
                wire.ready = True
                if again:  # (before a call waiting for this connection is sent on it)
                    self.watch.changed()
                ready.set()
                await self._stop.wait()
                self.watch.detach()
                tasks.cancel_scope.cancel()
        except BaseException as exc:  # reported to the caller waiting for the start
            if not ready.is_set():
                failure.append(exc)
            elif not self._stop.is_set() and not self._closed and not wire.failure:
                # not closed by us, and not said already (how it ended: the transport's)
                said = f" (its last words: {errlog.tail()})" if errlog and errlog.tail() else ""
                log.warning("upstream server '%s' closed the connection: %s%s", self.server,
                            cut(describe(exc), 300), said)
            if isinstance(exc, anyio.get_cancelled_exc_class()):
                raise
        finally:
            if errlog is not None:
                errlog.spawned()
            self.watch.detach()
            self._client = None
            ready.set()
            assert self._done is not None
            self._done.set()

    def _drop(self) -> None:
        with self._lock:
            self._drop_locked()

    def _drop_locked(self) -> None:
        portal, cm, done = self._portal, self._portal_cm, self._done
        ready = self._client is not None and self._ready is not None and self._ready.is_set()
        self._portal = self._portal_cm = self._client = None
        if portal is None:
            return
        stop = self._stop
        with contextlib.suppress(Exception):
            if stop is not None and ready:
                portal.call(stop.set)  # the holder closes the client (ends the process)
            # one that never became ready (no answer to initialize) is waited for no longer
            if done is not None and not done.wait(10 if ready else 0):
                portal.call(portal.stop, True)  # it hangs: cancel it
        with contextlib.suppress(BaseException):
            cm.__exit__(None, None, None)

    def _ended(self) -> str:
        """How the process of a start that failed ended on its own, with its last words."""
        wire = self._wire
        if not wire.ended:
            return ""
        last = wire.last_said()
        return f"it {wire.ended}" + (f" (its last words: {last})" if last else "")

    def _lost_session(self) -> None:
        if self._wire.session_lost:
            raise SessionLost(f"upstream server '{self.server}' no longer knows the session "
                               "toolhost started (HTTP 404)")

    def _status(self, said: str, most: int = 400) -> str:
        """What the mcp client ``said`` of a failed request, with the HTTP status the
        upstream answered it with (the client's own words for one are only 'Server returned
        an error response')."""
        status = self._wire.take_http_error()
        return cut(said, most) + (f" ({status})" if status else "")

    async def _list_tools(self) -> list[dict[str, Any]]:
        client = self._client
        if client is None:
            raise UpstreamError(f"upstream server '{self.server}' is not connected")
        return await list_all_tools(client, self.server, self.list_deadline, self._failed)

    async def _call_tool(self, name: str, arguments: dict[str, Any],
                         timeout: float | None, asker: Asker | None = None) -> dict[str, Any]:
        client = self._client
        if client is None:
            raise UpstreamError(f"upstream server '{self.server}' is not connected")
        limit = timeout or self.request_deadline
        asking = self.asks.running(asker) if self.asks is not None else contextlib.nullcontext()
        try:
            with asking, anyio.fail_after(limit):
                result = await client.call_tool(name, arguments,
                                                read_timeout_seconds=limit + 1)
        except TimeoutError:
            raise TimedOut(f"upstream server '{self.server}' did not answer the call of "
                                f"{name!r} within {limit:g}s") from None
        except Exception as exc:
            error = self._failed(exc, f"upstream server '{self.server}' failed during the "
                                 "call", f"the call of {name!r}")
            if isinstance(error, Broken):
                raise error from None
            return {"content": [{"type": "text", "text": str(error)}], "isError": True}
        return dict(result.model_dump(by_alias=True, exclude_none=True))

    def _failed(self, exc: Exception, failed: str, answered: str = "") -> UpstreamError:
        """The one reading of a request the mcp client failed with ``exc``: an error the
        upstream answered (JSON-RPC; the connection is sound) is an UpstreamError with its
        code (``upstream error: ...`` for a call); a well-framed answer whose result is
        invalid (a call's: ``answered`` names it) is refused in one line, the connection
        kept; anything else is a broken connection (``Broken``: dropped, the next use
        starts it again), said as ``failed: <why>`` with the HTTP status, if any."""
        self._lost_session()
        unread = unread_answer(exc)
        if unread is not None:  # (the mcp client's report was many lines long)
            return UpstreamError(f"upstream server '{self.server}' sent an answer that is not "
                                 f"valid JSON-RPC: {unread}")
        if is_protocol_error(exc):
            said = f"upstream error: {self._status(str(exc), 2000)}" if answered else \
                self._wire.failure or f"{failed}: {self._status(describe(exc))}"
            return UpstreamError(said, getattr(exc, "code", None))
        if answered and is_invalid(exc):
            said = (f"upstream server '{self.server}' answered {answered} with an invalid "
                    f"result: {describe_invalid(exc)}")
            log.warning("%s", said)
            return UpstreamError(said)
        wire = self._wire
        if not wire.failure and wire.origin and str(exc) == SSE_ENDED:
            # the mcp client's words when an answer's event stream ends: toolhost cut it
            # (too big), or its server went away
            refused, wire.refused = wire.refused, ""
            return Broken(refused or f"upstream server '{self.server}' ({wire.origin}) "
                           "ended the event stream of its answer without answering (it may "
                           "have crashed or restarted); the next use tries again")
        return Broken(wire.failure or f"{failed}: {self._status(describe(exc))}")
