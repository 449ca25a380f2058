"""Run a ServedServer on a transport until the client leaves (stdio) or a signal."""

from __future__ import annotations

import signal
import socket
import sys
import threading
from collections.abc import Callable, Collection, Coroutine, Hashable
from typing import IO, Any

import anyio

from toolhost.limits import DEFAULT_LIMITS, Limits
from toolhost.runner.owned_signals import signals_owned
from toolhost.serve.redact_telemetry import redact_telemetry
from toolhost.serve.resource_watch import ResourceWatch
from toolhost.serve.served import ServedServer
from toolhost.serve.stdio import EOF_GRACE_SECONDS, StdioServer
from toolhost.stdout_guard import claim_stdout, signal_death_near

__all__ = ["SERVE_EXTRA_HINT", "serve_http", "serve_stdio"]

SERVE_EXTRA_HINT = ("the HTTP transport needs starlette and uvicorn: "
                    "pip install 'toolhost[serve]'")

Background = Callable[[], Coroutine[Any, Any, Any]]


async def serve_stdio(served: ServedServer, *, reader: IO[bytes] | None = None,
                      writer: IO[bytes] | None = None,
                      background: Background | None = None,
                      limits: Limits = DEFAULT_LIMITS, grace: float | None = None) -> None:
    """Serve over stdio. Without ``writer`` the process's stdout is claimed for protocol.
    ``grace``: how long calls may still answer once the client closed stdin (default
    ``EOF_GRACE_SECONDS``)."""
    out = writer if writer is not None else claim_stdout()
    redact_telemetry()  # logs and spans, of handlers and providers set up now or later
    server = StdioServer(served, reader if reader is not None else sys.stdin.buffer, out,
                         on_eof=served.close, limits=limits,
                         grace=EOF_GRACE_SECONDS if grace is None else grace)

    async def broadcast(message: dict[str, Any],
                        peers: Collection[Hashable] | None = None) -> None:
        # the one peer (``peers`` names it None); a 2026-07-28 client hears list_changed on
        # its listen stream
        if served.legacy_peer:
            await server.send(message)

    served.broadcast = broadcast
    caught: list[int] = []
    try:
        async with anyio.create_task_group() as tg:
            if background is not None:
                tg.start_soon(background)
            tg.start_soon(ResourceWatch(served).run)
            if threading.current_thread() is threading.main_thread():
                tg.start_soon(_stop_on_signals, server, caught)
            await server.run()
            tg.cancel_scope.cancel()
    finally:
        await served.aclose()  # (shielded: it runs while the server is being cancelled)
    if caught and caught[0] == signal.SIGINT:
        raise KeyboardInterrupt  # exit 130, as a Ctrl-C always did
    if caught:  # the process ends by the signal, as over HTTP (uvicorn) and as before
        signal_death_near()  # no finally runs after this: what fds 1 and 2 hold is shown
        signal.signal(caught[0], signal.SIG_DFL)
        signal.raise_signal(caught[0])


async def _stop_on_signals(server: StdioServer, caught: list[int]) -> None:
    """SIGTERM, SIGHUP and Ctrl-C stop ``server`` gracefully: its calls get the grace to
    answer (before, each ended the process at once, every call in flight unanswered); a
    second Ctrl-C cancels what still runs at once, as over HTTP."""
    wanted = [s for s in (signal.SIGTERM, signal.SIGINT, getattr(signal, "SIGHUP", None))
              if s is not None]
    # and while it serves, a tool cannot take one of them (toolhost.runner.owned_signals)
    with signals_owned("toolhost serve while it serves"), \
            anyio.open_signal_receiver(*wanted) as signals:
        async for signum in signals:
            if not caught:
                caught.append(signum)
                server.stop(signal.Signals(signum).name)
            elif signum == signal.SIGINT:
                server.stop_now()


async def serve_http(served: ServedServer, *, host: str, port: int, token: str | None = None,
                     path: str = "/mcp", allowed_origins: tuple[str, ...] = (),
                     allowed_hosts: tuple[str, ...] = (), limits: Limits = DEFAULT_LIMITS,
                     background: Background | None = None,
                     shutdown_grace: float = 10.0, auth: Any = None,
                     config_files: tuple[str, ...] = (),
                     sockets: list[socket.socket] | None = None, metrics: bool = False
                     ) -> None:
    """Serve MCP Streamable HTTP on ``host:port`` until interrupted (SIGTERM, SIGINT): then
    stop accepting, let calls in flight finish for ``shutdown_grace`` seconds, cancel the
    rest. ``sockets``: already bound to ``host:port`` (``toolhost.serve.listen``);
    ``metrics``: serve ``GET /metrics`` (Prometheus, ``toolhost.serve.metrics``)."""
    try:
        from toolhost.serve.http import HttpServer
        from toolhost.serve.sessions import SessionTokens
    except ImportError as exc:
        from toolhost.errors import ToolhostError

        raise ToolhostError(f"{SERVE_EXTRA_HINT} ({exc})") from None
    server = HttpServer(served, path=path, token=token, allowed_origins=allowed_origins,
                        allowed_hosts=allowed_hosts, bind=host, limits=limits,
                        on_shutdown=served.close, shutdown_grace=shutdown_grace, auth=auth,
                        metrics=metrics,
                        sessions=SessionTokens.from_environ(config_files=config_files))

    async def broadcast(message: dict[str, Any],
                        peers: Collection[Hashable] | None = None) -> None:
        await server.broadcast(message, peers)

    served.broadcast = broadcast
    redact_telemetry()  # logs and spans, of handlers and providers set up now or later
    try:
        async with anyio.create_task_group() as tg:
            if background is not None:
                tg.start_soon(background)
            tg.start_soon(ResourceWatch(served).run)
            await server.serve(host, port, sockets)
            tg.cancel_scope.cancel()
    finally:
        await served.aclose()  # (shielded: it runs while the server is being cancelled)
