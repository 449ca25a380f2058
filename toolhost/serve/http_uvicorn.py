"""Running an ``HttpServer`` on uvicorn: its limits (connections, backlog, the header deadline
protocol of ``toolhost.serve.http_limits``), toolhost's log handler instead of uvicorn's, the
"serving on" line, and the graceful shutdown of ``toolhost.serve.shutdown``.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

import anyio
from starlette.types import ASGIApp

from toolhost.limits import Limits
from toolhost.runner.owned_signals import signals_owned
from toolhost.serve.http_limits import FD_HEADROOM, raise_fd_limit
from toolhost.serve.http_protocol import header_deadline_protocol
from toolhost.serve.http_state import InFlight
from toolhost.serve.http_streams import Streams
from toolhost.serve.shutdown import TaskHold, drain
from toolhost.serve.telemetry_flush import flush_telemetry
from toolhost.stdout_guard import signal_death_near

__all__ = ["Served", "hangup_as", "run_uvicorn"]

log = logging.getLogger("toolhost.serve")


class Served(Protocol):
    """What uvicorn runs and stops: an ``HttpServer`` (toolhost.serve.http)."""

    app: ASGIApp
    limits: Limits
    streams: Streams
    in_flight: InFlight
    path: str
    grace: float
    ready: bool  # /readyz: set False when the shutdown starts

    @property
    def tasks(self) -> TaskHold | None: ...  # the tasks a shutdown waits for

    def refuse_new(self) -> None: ...
    def close(self) -> None: ...


async def run_uvicorn(owner: Served, sockets: list[socket.socket]) -> None:
    """Serve ``owner.app`` on ``sockets`` until cancelled or signalled."""
    import uvicorn

    limits = owner.limits
    # log_config=None: uvicorn's records (an error, a traceback) go through toolhost's
    # handler and format (TOOLHOST_LOG_FORMAT=json), not a handler of its own
    connections = raise_fd_limit(limits.max_connections)
    # streams keep at most half of the connections served (fewer when files are short)
    owner.streams.limit = max(1, min(owner.streams.limit, connections // 2))
    # connections past the limit are refused as they open (header_deadline_protocol);
    # uvicorn's own limit (requests answered 503) only backs that up
    config = uvicorn.Config(owner.app, log_level="warning", log_config=None,
                            lifespan="off", timeout_graceful_shutdown=2,
                            limit_concurrency=connections + 1,
                            # asyncio accepts up to a backlog of connections each time
                            # the socket is ready, before any can be refused: a few
                            # such bursts must fit in the headroom
                            backlog=FD_HEADROOM // 4,
                            http=header_deadline_protocol(limits.header_timeout,
                                                          connections,
                                                          limits.max_message_bytes))

    class _Server(uvicorn.Server):
        async def shutdown(self, sockets: Any = None) -> None:
            # Calls in flight finish first (within the grace period), while the legacy
            # GET streams stay open: a client whose stream closed would reconnect, fail,
            # and drop its calls. Then the streams that never end by themselves.
            owner.ready = False
            log.warning("shutting down: waiting up to %g s for %d call(s) in flight",
                        owner.grace, owner.in_flight.count)
            # accepting while calls come, then refusing new ones (503), then cancelling
            # what outlives the grace, each answered (toolhost.serve.shutdown)
            # a second Ctrl-C (uvicorn's force_exit) ends the waiting at once
            await drain(owner.in_flight, owner.grace, owner.refuse_new,
                        forced=lambda: self.force_exit, tasks=owner.tasks)
            owner.close()
            await super().shutdown(sockets)
            # the process ends by the signal, so the SDK's atexit flush never runs: the
            # spans of the last calls are exported now, within a bound (telemetry_flush)
            await anyio.to_thread.run_sync(flush_telemetry)

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # SIGHUP (a closed terminal, `kill -HUP`) stops as gracefully as SIGTERM:
            # uvicorn takes only SIGINT and SIGTERM, and SIGHUP's default killed the
            # process at once, cutting off every call in flight
            with super().capture_signals():
                try:  # and while it serves, a tool cannot take a signal from it
                    with hangup_as(self.handle_exit), \
                            signals_owned("toolhost serve while it serves"):
                        yield
                finally:  # uvicorn re-raises a signal it took as this block ends
                    if self._captured_signals:
                        signal_death_near()

    server = _Server(config)

    async def announce() -> None:
        while not server.started:
            await anyio.sleep(0.05)
        for sock in (s for srv in server.servers for s in srv.sockets):
            bound_host, bound_port = sock.getsockname()[:2]
            print(f"toolhost: serving MCP on http://{bound_host}:{bound_port}{owner.path}",
                  file=sys.stderr, flush=True)

    async with anyio.create_task_group() as tg:
        tg.start_soon(announce)
        await server.serve(sockets=sockets)
        tg.cancel_scope.cancel()


@contextlib.contextmanager
def hangup_as(handler: Callable[[int, Any], None]) -> Iterator[None]:
    """SIGHUP handled by ``handler`` (uvicorn's ``handle_exit``: a graceful stop) while
    inside; the handler before restored after (then uvicorn raises the signal it took
    again, and the process ends by it as by SIGTERM). Main thread only, where it exists."""
    if not hasattr(signal, "SIGHUP") or threading.current_thread() is not \
            threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGHUP, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGHUP, previous)
