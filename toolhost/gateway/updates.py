"""An upstream's ``notifications/resources/updated``, for the resource URIs toolhost's own
clients subscribed to (``toolhost serve``; ``toolhost.serve.upstream_updates`` is the host's
side).

The host says which of the upstream's URIs it wants to hear about (``want``: at most
MAX_SUBSCRIBED, a set that replaces the last one); the connection's thread (``keep``, a task
of its holder) subscribes to them upstream, if the upstream's capabilities offer
``resources.subscribe``, in its era:

- 2025-11-25: ``resources/subscribe`` for each URI newly wanted, ``resources/unsubscribe``
  for each no longer wanted; the updates come to the client's ``message_handler``;
- 2026-07-28: a ``subscriptions/listen`` stream of its own whose ``resourceSubscriptions``
  are the wanted URIs (the list-change stream of ``toolhost.gateway.changes`` is left
  alone). A filter cannot change on an open stream, so a new set opens a new stream and
  closes the old one once the new one is acknowledged: no gap in between.

A reconnection starts with nothing subscribed and subscribes to the wanted set again; so
does a listen stream that dropped. What changed upstream meanwhile was never announced, so once
the subscription is back, every URI it covers is handed on as updated (a client re-reads it:
one read too many at worst, never an update lost).

An update for a URI that is not wanted is dropped on arrival (counted in ``dropped``), so an
upstream that sends millions of them for URIs nobody subscribed to costs nothing that grows.
Wanted ones are handed to the host's ``callback`` like ``changes.Channel`` does: in a worker
thread of the portal, one hand-off at a time, the URIs that came meanwhile (a set: a burst
for one URI is one update) riding on the next one, at most one every HAND_OFF_GAP seconds.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import TaskGroup, TaskStatus

from toolhost.excerpt import cut
from toolhost.gateway.sendable import unsendable

__all__ = ["MAX_SUBSCRIBED", "ResourceUpdates"]

log = logging.getLogger("toolhost.gateway")

MAX_SUBSCRIBED = 1000  # URIs subscribed upstream per upstream (a listen stream's own cap)
HAND_OFF_GAP = 0.05  # seconds between two hand-offs to the host: a flood is coalesced
MAX_RELISTEN_DELAY = 30.0

Deliver = Callable[[frozenset[str]], None]


class ResourceUpdates:
    """The resource updates of one upstream (across its reconnections), to ``callback``."""

    def __init__(self, server: str) -> None:
        self.server = server
        # Set from the host's side, read in the portal: plain attribute stores are atomic.
        self.wanted: frozenset[str] = frozenset()
        self.callback: Deliver | None = None
        self.dropped = 0  # updates for URIs nobody wanted
        self._tasks: TaskGroup | None = None
        self._lock: anyio.Lock | None = None
        self._wake: anyio.Event | None = None
        self._token: Any = None  # the portal's loop, while a connection is up
        self._pending: set[str] = set()  # only ever wanted URIs
        self._queued = False
        self._said_unsupported = False
        self._connections = 0  # connections opened: from the second on, a gap to make up

    # -- the host's side (any thread) ---------------------------------------------------------

    def want(self, uris: Iterable[str], callback: Deliver | None, *,
             wake: bool = True) -> None:
        """Hear about these URIs from now on (the first MAX_SUBSCRIBED, sorted; a set that
        replaces the last one), through ``callback``, called in a worker thread of the
        connection's. Call it outside the connection's thread: when the connection is up it
        waits briefly for that thread to take the news (unless not ``wake``). A connection
        that is down subscribes when it is back."""
        # (one JSON text cannot carry would fail the whole connection: never subscribed)
        wanted = frozenset(sorted(u for u in set(uris) if not unsendable(u))[:MAX_SUBSCRIBED])
        self.callback = callback if wanted else None
        changed, self.wanted = wanted != self.wanted, wanted
        token = self._token
        if changed and wake and token is not None:
            with contextlib.suppress(Exception):  # closing: the next connection subscribes
                anyio.from_thread.run_sync(self._wish, token=token)

    # -- the portal's side ----------------------------------------------------------------------

    def attach(self, tasks: TaskGroup) -> None:
        """A connection opened: hand-offs run in its holder's ``tasks``."""
        self._tasks, self._lock, self._queued = tasks, anyio.Lock(), False
        self._wake, self._pending = anyio.Event(), set()
        self._token = anyio.lowlevel.current_token()
        self._connections += 1

    def detach(self) -> None:
        """The connection is closing: nothing more is handed on from it."""
        self._tasks = self._token = None

    def _wish(self) -> None:  # in the portal: ``wanted`` changed
        if self._wake is not None:
            self._wake.set()

    def updated(self, uri: object) -> None:
        """The upstream says ``uri`` changed (in the portal): hand it on, soon."""
        if not isinstance(uri, str) or uri not in self.wanted:
            self.dropped += 1
            return
        if self._tasks is None:
            return
        self._pending.add(uri)
        if not self._queued:
            self._queued = True
            self._tasks.start_soon(self._hand_off)

    def _replay(self, uris: Iterable[str]) -> None:
        """After a gap in the subscription to ``uris`` (in the portal): each may have
        changed unannounced, so each is handed on as updated."""
        for uri in uris:
            self.updated(uri)

    async def _hand_off(self) -> None:
        assert self._lock is not None
        async with self._lock:
            self._queued = False  # an update from here on needs a hand-off of its own
            uris, self._pending = frozenset(self._pending & self.wanted), set()
            callback = self.callback
            if not uris or callback is None:
                return
            try:  # in a worker thread: the callback may wait for the host's loop
                await anyio.to_thread.run_sync(callback, uris, abandon_on_cancel=True)
            except Exception as exc:  # the host's loop is gone: nobody to tell
                log.debug("%s: could not hand on a resource update: %s", self.server, exc)
            await anyio.sleep(HAND_OFF_GAP)  # what comes meanwhile rides on the next one

    async def keep(self, client: Any) -> None:
        """Keep the upstream subscriptions in step with ``wanted`` while the connection
        lives (a task of its holder; never raises)."""
        resources = getattr(client.server_capabilities, "resources", None)
        if not getattr(resources, "subscribe", False):
            while True:  # say so once, when a client first wants something from it
                if self.wanted and not self._said_unsupported:
                    log.info("%s: the upstream offers no resource subscriptions; a client "
                             "subscribed to its resources hears no updates", self.server)
                    self._said_unsupported = True
                await self._next_wish()
        from mcp_types.version import MODERN_PROTOCOL_VERSIONS

        if client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await self._keep_listening(client)
        else:
            await self._keep_subscribed(client)

    async def _next_wish(self) -> None:
        assert self._wake is not None
        await self._wake.wait()
        self._wake = anyio.Event()

    async def _keep_subscribed(self, client: Any) -> None:
        """2025-11-25: one ``resources/subscribe`` per wanted URI."""
        import mcp_types as types

        subscribed: set[str] = set()  # a new session has none
        gap = self._connections > 1  # a reconnection: the first round makes up for it
        while True:
            wanted = self.wanted
            try:
                for uri in sorted(subscribed - wanted):
                    subscribed.discard(uri)
                    await client.session.send_request(types.UnsubscribeRequest(
                        params=types.UnsubscribeRequestParams(uri=uri)), types.EmptyResult)
                for uri in sorted(wanted - subscribed):
                    subscribed.add(uri)  # a refusal is not asked again and again
                    await client.session.send_request(types.SubscribeRequest(
                        params=types.SubscribeRequestParams(uri=uri)), types.EmptyResult)
            except Exception as exc:  # refused, or the connection broke (its calls notice)
                log.warning("%s: subscribing to its upstream's resources failed: %s",
                            self.server, cut(str(exc) or type(exc).__name__, 300))
            if gap:
                gap = False
                self._replay(subscribed & self.wanted)
            if self.wanted == wanted:
                await self._next_wish()

    async def _keep_listening(self, client: Any) -> None:
        """2026-07-28: a listen stream per wanted set, the newest one open."""
        current: frozenset[str] = frozenset()
        scope: anyio.CancelScope | None = None
        gap = self._connections > 1  # a reconnection: its first stream makes up for it
        async with anyio.create_task_group() as streams:
            while True:
                wanted = self.wanted
                if wanted != current:
                    old, current = scope, wanted
                    scope = await streams.start(self._listen, client, wanted, gap) \
                        if wanted else None
                    gap = gap and not wanted
                    if old is not None:
                        old.cancel()
                if self.wanted == wanted:
                    await self._next_wish()

    async def _listen(self, client: Any, uris: frozenset[str], gap: bool,
                      task_status: TaskStatus[anyio.CancelScope]) -> None:
        """Hold one stream for ``uris``, opened again after 1, 2, 4 ... 30 s when it ends
        or drops (once open again, ``uris`` are handed on as updated, as they are on the
        first opening when ``gap``); started once it is acknowledged or failed to open."""
        from mcp.client.subscriptions import ResourceUpdated

        delay, started = 1.0, False
        with anyio.CancelScope() as scope:
            while True:
                opened = time.monotonic()
                try:
                    async with client.listen(resource_subscriptions=sorted(uris)) as stream:
                        if not started:
                            task_status.started(scope)
                            started = True
                        if gap:
                            self._replay(uris)
                        async for event in stream:
                            if isinstance(event, ResourceUpdated):
                                self.updated(event.uri)
                    why = "ended"
                except Exception as exc:
                    why = f"dropped ({cut(str(exc) or type(exc).__name__, 200)})"
                gap = True  # ended, dropped or never opened: whatever came meanwhile is lost
                if not started:
                    task_status.started(scope)
                    started = True
                if time.monotonic() - opened > MAX_RELISTEN_DELAY:
                    delay = 1.0  # it held for a while: this is no crash loop
                log.info("%s: the upstream's resource subscription stream %s; listening "
                         "again in %gs", self.server, why, delay)
                await anyio.sleep(delay)
                delay = min(delay * 2, MAX_RELISTEN_DELAY)
