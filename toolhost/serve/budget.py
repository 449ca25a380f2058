"""How much one client may have in flight: requests being answered, and the bytes of their
messages (``Limits.max_in_flight`` / ``max_in_flight_bytes``).

Without a bound, a client that writes small slow calls faster than they finish grows the
server without end (about 16 KB per pending call, and every parsed message is kept for the
life of its call) until it dies with every accepted call lost. With one, the excess is
answered at once with a "server busy" error naming the limit; what was accepted goes on.
This is the idea of ``toolhost run``'s session (``toolhost.protocol.tasks.RequestTasks.
has_room``), for ``toolhost serve``'s transports.
"""

from __future__ import annotations

from typing import Any

from toolhost.excerpt import cut
from toolhost.mcp import jsonrpc as rpc
from toolhost.serve.base import error_response

__all__ = ["Budget", "Reservation"]


class Budget:
    """Requests and message bytes in flight, against their limits (``None``: unbounded).

    ``take`` before serving a request, ``give_back`` (the same size) when it is answered.
    Single-task use on one event loop: nothing awaits between a check and its update.
    """

    def __init__(self, max_requests: int | None, max_bytes: int | None, *,
                 scope: str, flags: str) -> None:
        self.max_requests = max_requests
        self.max_bytes = max_bytes
        self.count = 0
        self.held = 0
        self._scope = scope  # "on this connection", for the error text
        self._flags = flags

    def has_room(self, size: int) -> bool:
        """Whether a request of ``size`` bytes fits (one always does when nothing is held)."""
        if self.max_requests is not None and self.count >= self.max_requests:
            return False
        return self.bytes_fit(size)

    def bytes_fit(self, size: int) -> bool:
        """Whether ``size`` more bytes fit (any do when nothing is held)."""
        return self.max_bytes is None or self.held == 0 or self.held + size <= self.max_bytes

    def take(self, size: int) -> bool:
        """Count a request in if it fits; whether it did."""
        if not self.has_room(size):
            return False
        self.count += 1
        self.held += size
        return True

    def give_back(self, size: int) -> None:
        self.count -= 1
        self.held -= size

    def refusal(self, request_id: Any) -> dict[str, Any]:
        """The answer to a request that did not fit: -32000, naming the limit."""
        limits = []
        if self.max_requests is not None:
            limits.append(f"{self.max_requests:,} requests")
        if self.max_bytes is not None:
            limits.append(f"{self.max_bytes:,} bytes of messages")
        return error_response(
            request_id, rpc.SERVER_BUSY,
            f"Server busy: {self.count:,} requests ({self.held:,} bytes) are being answered "
            f"{self._scope}; the limit is {' or '.join(limits)} ({self._flags}). This request "
            f"(id {cut(repr(request_id), 60)}) was not run; send it again when some have "
            "been answered")


class Reservation:
    """Bytes of a message still being read (an HTTP body), held in ``budget`` as they arrive
    so that many slow clients cannot hold more than the budget between them.

    ``add`` each chunk before keeping it (False: the budget is spent, refuse the message);
    ``release`` gives everything back, once (call it on every path: done, refused, timed out,
    client gone). The request itself is then counted by ``Budget.take``.
    """

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.size = 0

    def add(self, size: int) -> bool:
        budget = self.budget
        # as with take: a message alone always fits, however large (--max-message bounds it)
        if budget.held > self.size and not budget.bytes_fit(size):
            return False
        self.budget.held += size
        self.size += size
        return True

    def release(self) -> None:
        self.budget.held -= self.size
        self.size = 0
