"""``notifications/resources/updated`` for an imported server's resources: what the clients of
``toolhost serve`` subscribed to is subscribed to upstream, and the upstream's updates are
passed on to them.

Which upstream a URI belongs to is what the served content says (``content.find``: one of
``toolhost.gateway.passthrough``'s resources carries its connection); the URI is the same on
both sides. The set each upstream should hear about is worked out again whenever a client
subscribes or unsubscribes (either era: ``resources/subscribe`` or a listen stream's
``resourceSubscriptions``) and when the served resources change, and handed to the
connection (``toolhost.gateway.updates.ResourceUpdates.want``), which subscribes and unsubscribes
upstream; an upstream no client wants anything from any more is told so (nothing stays
subscribed "just in case": an unsubscribe is cheap, and an upstream's own subscriptions are
as bounded as ours). Each upstream gets at most ``toolhost.gateway.updates.MAX_SUBSCRIBED``
URIs, taken from the subscribed clients in turn (``resource_watch.in_turn``): one client
with many subscriptions never pushes out another's.

Updates come back in a worker thread of the connection, hop onto this loop and are sent by
``ServedServer.resource_updated`` (to legacy subscribers and listen streams alike), only
for URIs still wanted from that upstream; a burst for one URI is one update.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread

from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.updates import MAX_SUBSCRIBED
from toolhost.serve.resource_watch import in_turn

if TYPE_CHECKING:
    from toolhost.serve.served import ServedServer

__all__ = ["UpstreamSubscriptions"]

log = logging.getLogger("toolhost.serve")


class UpstreamSubscriptions:
    """Follows the subscriptions of ``served``'s clients upstream (``run`` until cancelled)."""

    def __init__(self, served: ServedServer) -> None:
        self.served = served
        self._wanted: dict[UpstreamConnection, frozenset[str]] = {}
        self._pending: set[str] = set()
        self._changed = anyio.Event()  # the clients' subscriptions or the resources changed
        self._arrived = anyio.Event()  # updates came

    async def run(self) -> None:
        """Reconcile and deliver until cancelled; then nothing is wanted any more."""
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._deliver)
                while True:
                    self._changed = anyio.Event()
                    self.served.on_subscriptions = self._changed.set
                    await self.reconcile()
                    await self._changed.wait()
        finally:
            self.served.on_subscriptions = None
            for connection in self._wanted:  # no waiting here: the portal may be stopping
                connection.watch.updates.want((), None, wake=False)

    async def reconcile(self) -> None:
        """Tell each upstream the URIs its resources' subscribers want now."""
        wanted: dict[UpstreamConnection, set[str]] = {}
        content = self.served.core.content
        # the clients' URIs in turn, so one client's many never push out another's
        for uri in in_turn(self.served.subscriptions_by_client()):
            found = content.find(uri)
            connection = getattr(found[0], "connection", None) if found else None
            if isinstance(connection, UpstreamConnection):
                bucket = wanted.setdefault(connection, set())
                if len(bucket) < MAX_SUBSCRIBED:
                    bucket.add(uri)
        token = anyio.lowlevel.current_token()
        for connection in {*self._wanted, *wanted}:
            uris = frozenset(wanted.get(connection, ()))
            if uris == self._wanted.get(connection, frozenset()):
                continue
            if uris:
                self._wanted[connection] = uris
            else:
                self._wanted.pop(connection, None)
            deliver = self._deliverer(connection, token)
            try:  # a worker thread: it waits briefly for the connection's own
                await anyio.to_thread.run_sync(connection.watch.updates.want, uris, deliver,
                                               abandon_on_cancel=True)
            except Exception:  # a bug there must not stop the server
                log.exception("%s: following its subscribed resources failed",
                              connection.server)

    def _deliverer(self, connection: UpstreamConnection, token: Any
                   ) -> Callable[[frozenset[str]], None]:
        def deliver(uris: frozenset[str]) -> None:  # in the connection's worker thread
            anyio.from_thread.run_sync(self._take, connection, uris, token=token)

        return deliver

    def _take(self, connection: UpstreamConnection, uris: frozenset[str]) -> None:
        self._pending |= uris & self._wanted.get(connection, frozenset())
        self._arrived.set()

    async def _deliver(self) -> None:
        while True:
            await self._arrived.wait()
            self._arrived = anyio.Event()
            uris, self._pending = sorted(self._pending), set()
            for uri in uris:
                await self.served.resource_updated(uri)
