"""The table of ``resources/subscribe``: which URIs each peer (a stdio connection, an HTTP
session) asked to hear about, and as which caller, bounded so no client grows it without end.

Bounds: ``MAX_SUBSCRIPTIONS`` URIs and ``MAX_SUBSCRIBED_CHARS`` characters per peer (past
them a subscribe is refused), ``max_peers`` peers remembered (the oldest forgotten first;
an HTTP transport raises it to the sessions it keeps and forgets its own), and
``max_bytes`` for every peer together, counting ``URI_COST`` bytes a URI besides its
characters: past it the client holding the most (``holder_of`` tells which peers are one
client's: an HTTP transport names a session's caller or address) loses its largest peer's
first, so a client filling it from many small idle sessions loses its own before another
client's session loses any, however many URIs that one holds.
Transport-free; ``toolhost.mcp.content`` answers the methods with it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable

__all__ = ["MAX_ALL_SUBSCRIBED", "MAX_SUBSCRIBED_CHARS", "MAX_SUBSCRIBERS", "MAX_SUBSCRIPTIONS",
           "URI_COST", "Refused", "Subscriptions"]

MAX_SUBSCRIPTIONS = 1000  # per peer
MAX_SUBSCRIBERS = 10_000  # peers remembered
MAX_SUBSCRIBED_CHARS = 256 * 1024  # per peer: its URIs' characters (a listen stream's)
# every peer's subscriptions together: their characters plus URI_COST each (a string and a
# set slot); 10,000 idle sessions of 1,000 URIs of 8 KB each were 80 GB
MAX_ALL_SUBSCRIBED = 64 * 1024 * 1024
URI_COST = 128

_log = logging.getLogger("toolhost.call")


class Refused(Exception):
    """A subscription over a peer's own bounds (the message says which)."""


class Subscriptions:
    """URIs per peer, the caller each subscribed as, and what each costs (see the module
    docstring). Kept across a reload: the content changes, the clients' wishes do not."""

    def __init__(self) -> None:
        self.by_peer: dict[Hashable, set[str]] = {}
        # the caller each peer subscribed as (a Caller or None): a reload judges its
        # subscriptions as that caller (toolhost.mcp.content_calls)
        self.callers: dict[Hashable, Hashable] = {}
        self.max_peers = MAX_SUBSCRIBERS  # peers remembered (the oldest goes first)
        self.max_bytes = MAX_ALL_SUBSCRIBED  # all peers' URIs (the largest go first)
        # what each peer's URIs cost, as of its last subscribe (a peer's URIs only shrink
        # elsewhere, so this over-counts at worst, and is counted again before anyone goes)
        self.cost: dict[Hashable, int] = {}
        # the client a peer belongs to, for the budget's eviction (None: each peer its own)
        self.holder_of: Callable[[Hashable], Hashable] | None = None

    def add(self, peer: Hashable, uri: str, caller: Hashable) -> None:
        """``peer`` hears about ``uri`` from now on (as ``caller``); raises ``Refused``."""
        if len(self.by_peer) >= self.max_peers and peer not in self.by_peer:
            self.forget(next(iter(self.by_peer)))
        uris = self.by_peer.setdefault(peer, set())
        if uri not in uris:
            if len(uris) >= MAX_SUBSCRIPTIONS:
                raise Refused(f"at most {MAX_SUBSCRIPTIONS:,} subscriptions per connection")
            held = sum(map(len, uris))
            if held + len(uri) > MAX_SUBSCRIBED_CHARS:
                raise Refused(f"the URIs a connection subscribes to are at most "
                              f"{MAX_SUBSCRIBED_CHARS:,} characters in all; this one's hold "
                              f"{held:,}")
            cost = held + len(uri) + URI_COST * (len(uris) + 1)
            self._make_room(peer, cost)
            self.cost[peer] = cost
        uris.add(uri)
        self.callers[peer] = caller

    def discard(self, peer: Hashable, uri: str) -> None:
        """``peer`` no longer hears about ``uri``."""
        self.by_peer.get(peer, set()).discard(uri)

    def forget(self, peer: Hashable) -> None:
        """Drop every subscription of ``peer`` (gone, or pushed out)."""
        self.by_peer.pop(peer, None)
        self.callers.pop(peer, None)
        self.cost.pop(peer, None)

    def subscribers(self, uri: str) -> list[Hashable]:
        """The peers subscribed to ``uri``."""
        return [peer for peer, uris in self.by_peer.items() if uri in uris]

    def _make_room(self, peer: Hashable, cost: int) -> None:
        """Forget other peers' subscriptions, the largest first, until ``peer``'s ``cost``
        fits ``max_bytes``."""
        costs = self.cost
        if sum(costs.values()) - costs.get(peer, 0) + cost <= self.max_bytes:
            return
        for other in list(costs):  # counted again: URIs dropped since, peers forgotten
            uris = self.by_peer.get(other)
            if uris is None:
                costs.pop(other)
            else:
                costs[other] = sum(map(len, uris)) + URI_COST * len(uris)
        total = sum(costs.values()) - costs.get(peer, 0) + cost
        holder = self.holder_of or (lambda p: p)
        owner = {other: holder(other) for other in costs if other != peer}
        held: dict[Hashable, int] = {}  # each client's peers together (``peer``'s as asked)
        for other, key in owner.items():
            held[key] = held.get(key, 0) + costs[other]
        held[holder(peer)] = held.get(holder(peer), 0) + cost
        while total > self.max_bytes:
            largest = max(owner, key=lambda p: (held[owner[p]], costs[p]), default=None)
            if largest is None:
                return
            total -= costs[largest]
            held[owner.pop(largest)] -= costs[largest]
            self.forget(largest)
            _log.warning("forgot the resource subscriptions of a client holding the most: "
                         "all clients' together were over %d bytes", self.max_bytes)
