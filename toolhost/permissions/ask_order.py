"""Questions reach the asker in the order their checks began (``PermissionGate.check``).

A check whose rules read files decides in a thread (``reads_files``); two such checks, or one
beside a check decided at once, finish deciding in any order. Each check takes a ticket as it
begins (before any pause) and goes to the asker only once every earlier ticket has gone there
or ended (allowed, denied, cancelled): the asker's own lock is first come, first served, so
the person is asked in the order the calls came.
"""

from __future__ import annotations

import anyio

__all__ = ["AskOrder"]


class AskOrder:
    """Tickets in the order checks began; ``turn`` waits for the earlier ones to pass."""

    def __init__(self) -> None:
        self._next = 0  # the next ticket given
        self._head = 0  # the first ticket not passed yet
        self._passed: set[int] = set()  # passed out of order, waiting for the head
        self._waiting: dict[int, anyio.Event] = {}

    def take(self) -> int:
        self._next += 1
        return self._next - 1

    def passed(self, ticket: int) -> None:
        """``ticket`` went to the asker or ended: later ones need not wait for it."""
        if ticket != self._head:
            self._passed.add(ticket)
            return
        self._head += 1
        passed = self._passed
        while self._head in passed:
            passed.discard(self._head)
            self._head += 1
        woken = self._waiting.pop(self._head, None)
        if woken is not None:
            woken.set()

    async def turn(self, ticket: int) -> None:
        """Return once every ticket before ``ticket`` has passed (at once when none waits)."""
        if ticket == self._head:
            return
        event = self._waiting[ticket] = anyio.Event()
        try:
            await event.wait()
        finally:
            self._waiting.pop(ticket, None)
