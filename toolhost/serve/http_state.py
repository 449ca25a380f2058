"""What a legacy session id stands for (:class:`Session`), and the requests of a server
being answered (:class:`InFlight`): the records the HTTP server, its session table and a
graceful shutdown share."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio

from toolhost.mcp.client_requests import Pending
from toolhost.serve.budget import Budget
from toolhost.serve.http_streams import Stream

__all__ = ["InFlight", "Session"]


@dataclass
class Session:
    """What a legacy (initialize-era) client's session id stands for."""

    # its open GET and listen streams, oldest first (toolhost.serve.http_streams.Streams)
    streams: dict[Stream, None] = field(default_factory=dict)
    running: dict[Any, anyio.CancelScope] = field(default_factory=dict)
    # ids of its requests accepted and not yet answered: a second request with one of them
    # is refused -32600, as on stdio (running only holds them once their exchange starts)
    taken: set[Any] = field(default_factory=set)
    # The client's capabilities (from initialize) and the requests we sent it (ctx.elicit,
    # ctx.sample, asks) that it has not answered: it POSTs the answers.
    capabilities: Mapping[str, Any] = field(default_factory=dict)
    pending: Pending = field(default_factory=Pending)
    # requests of this session being answered (Limits.max_in_flight; HttpServer sets it)
    budget: Budget | None = None
    last_seen: float = 0.0  # time.monotonic() of its last request or stream (SessionTable)
    # time.time() its signed id expires at (SessionTokens): past it, the id is unknown here too
    expires: float = math.inf
    owner: str = ""  # the caller that started it (sessions.owner_of): nobody else may use it
    # who holds it, for a fair eviction (session_table): its owner, else its client's address
    holder: str = ""
    # False: served for one request without being kept (the table was full of sessions in
    # use): no settings, streams or questions to the client (toolhost.serve.http_sessions)
    kept: bool = True
    unkept_id: str = ""  # its id while not kept (LegacySessions.done_unkept)
    # taken out of the table (DELETE, expiry, eviction): what a request of it still being
    # answered sets for it (a subscription, a log level) is forgotten once it is answered
    gone: bool = False


class InFlight:
    """How many requests are being answered (a graceful shutdown waits for none), how many
    ever were (``entered``: did one start meanwhile?), and their cancel scopes: what still
    runs when the grace ends is cancelled (``cancel_all``) and answered with ``reason``."""

    def __init__(self) -> None:
        self.count = 0
        self.entered = 0
        self.reason: str | None = None  # set by cancel_all: the answer of a cancelled call
        self._scopes: set[anyio.CancelScope] = set()
        self._idle = anyio.Event()
        self._idle.set()

    def enter(self) -> None:
        self.count += 1
        self.entered += 1
        if self.count == 1:
            self._idle = anyio.Event()

    def track(self, scope: anyio.CancelScope) -> None:
        self._scopes.add(scope)

    def untrack(self, scope: anyio.CancelScope) -> None:
        self._scopes.discard(scope)

    def cancel_all(self, reason: str) -> None:
        """Cancel every request being answered; each answers -32800 with ``reason``."""
        self.reason = reason
        for scope in list(self._scopes):
            scope.cancel()

    def leave(self) -> None:
        self.count -= 1
        if self.count == 0:
            self._idle.set()

    async def wait_idle(self) -> None:
        await self._idle.wait()
