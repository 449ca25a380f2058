"""Who holds the HTTP server's connections (``--max-connections``), so that one client
opening them all cannot keep every other client out.

A connection is held by its client's address (an IPv6 one by its /64,
``session_table.holder_of``). When a connection comes past the limit, one of the
connections of the client holding the most is closed to make room, if that client holds
more than the newcomer's client does (counting the newcomer) plus one, and the connection
is doing nothing an answer is owed for: waiting for a request's head (idle, or sending it
slowly), else receiving a request's body whose answer has not started. Otherwise the
newcomer is refused, as before. A connection running a call is never closed for another.

Clients behind one NAT or one proxy share an address, so they count as one client here
(as among themselves the old first-come rule); the PROXY protocol is not read.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["Seats", "holder_of_peer"]

WAITING_HEAD = 0  # a connection's rank as a victim: closed first
RECEIVING_BODY = 1  # then these


def holder_of_peer(peer: Any) -> str:
    """The holder of a connection from ``peer`` (``transport.get_extra_info("peername")``)."""
    from toolhost.serve.session_table import holder_of  # (it imports the streams, which import us)

    return holder_of("", peer)


class Seats:
    """The open connections by holder, each holder's oldest first."""

    def __init__(self) -> None:
        self._held: dict[str, dict[Hashable, None]] = {}

    def take(self, holder: str, connection: Hashable) -> None:
        self._held.setdefault(holder, {})[connection] = None

    def give_back(self, holder: str, connection: Hashable) -> None:
        held = self._held.get(holder)
        if held is not None:
            held.pop(connection, None)
            if not held:
                del self._held[holder]

    def count(self, holder: str) -> int:
        held = self._held.get(holder)
        return len(held) if held is not None else 0

    def victim(self, holder: str, rank: Callable[[Any], int | None]) -> Any | None:
        """A connection to close so that one of ``holder`` can be served, or None: from the
        holders holding more than ``holder`` does plus one, most first, the oldest
        connection of the best ``rank`` (None: it may not be closed; else lower first)."""
        own = self.count(holder)
        larger = sorted((held for name, held in self._held.items()
                         if name != holder and len(held) > own + 1), key=len, reverse=True)
        for held in larger:
            best: tuple[int, Any] | None = None
            for connection in held:
                order = rank(connection)
                if order is None or (best is not None and order >= best[0]):
                    continue
                best = (order, connection)
                if order == WAITING_HEAD:
                    break
            if best is not None:
                return best[1]
        return None
