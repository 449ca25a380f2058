"""Each client's share of the HTTP server's connections taken by answers under way.

A connection answering a request (a call running, a stream open) is never closed for
another client (``http_admission``): so one client whose every connection runs a call, a
few seconds each and again, could hold all ``--max-connections`` of them and every other
client found the server full for as long as it kept on. Here a client (``holder``:
its OAuth caller, else its address, ``session_table.holder_of``) has at most three quarters
of ``--max-connections`` in requests and streams being answered at once; more are answered
at once with a "server busy" error, so their connections are idle again (and may be closed
for another client's) and a quarter is always left for the other clients. Three quarters,
not half: streams may take half of the connections (``http_streams``), and a client holding
that many must still have its requests answered.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from toolhost.excerpt import cut
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.jsonrpc import error_response

__all__ = ["Shares", "share_of"]

log = logging.getLogger("toolhost.serve")


def share_of(max_connections: int) -> int:
    """What one client may hold of ``max_connections``: three quarters (at least one)."""
    return max(1, max_connections - max_connections // 4)


class Shares:
    """Requests being answered, by holder; ``streams_of`` adds a holder's open streams."""

    def __init__(self, max_connections: int, streams_of: Callable[[str], int]) -> None:
        self.share = share_of(max_connections)
        self._running: dict[str, int] = {}
        self._streams_of = streams_of
        self._warned = -60.0  # when the last refusal was logged

    def held(self, holder: str) -> int:
        """What ``holder`` has under way: its requests being answered and its streams."""
        return self._running.get(holder, 0) + self._streams_of(holder)

    def take(self, holder: str, request_id: Any, *, count: bool = True
             ) -> Callable[[], None] | dict[str, Any]:
        """Count one request of ``holder`` in (``count``: False for one that opens a stream,
        which counts as that stream); the error answer refusing it when its share is full,
        else what gives it back."""
        held = self.held(holder)
        if held >= self.share:
            now = time.monotonic()
            if now - self._warned >= 60:  # one line a minute, however many are refused
                self._warned = now
                log.warning("refused requests of client %s: it has %s under way (three "
                            "quarters of --max-connections)", cut(holder or "?", 80), f"{held:,}")
            return error_response(
                request_id, rpc.SERVER_BUSY,
                f"Server busy: this client has {held:,} requests and streams under way here, "
                f"its share of the connections (three quarters of toolhost serve "
                f"--max-connections). "
                f"This request (id {cut(repr(request_id), 60)}) was not run; send it again "
                "when some have been answered")
        if not count:
            return _nothing
        self._running[holder] = self._running.get(holder, 0) + 1

        def give_back() -> None:
            left = self._running.get(holder, 0) - 1
            if left > 0:
                self._running[holder] = left
            else:
                self._running.pop(holder, None)
        return give_back


def _nothing() -> None:
    return None
