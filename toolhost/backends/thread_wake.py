"""How a sync-tool pool thread hands a finished call back to the asyncio event loop.

``loop.call_soon_threadsafe`` wakes the loop through its self-pipe: a ``send`` from the thread,
then on the loop a ``recv`` of the byte and a second ``recv`` that ends in ``BlockingIOError``
(an exception raised and caught in Python on every wake). A ``LoopWaker`` is a pipe of its own
watched with ``add_reader``: the thread queues the call and writes one byte (none when a byte
is already on its way: 32 calls finishing together wake the loop once), the loop reads once
and hands back every queued call. Where the loop cannot watch a pipe (no ``add_reader``),
``waker_for`` gives None and the pool uses ``call_soon_threadsafe`` as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import weakref
from collections import deque
from collections.abc import Callable
from typing import Any

__all__ = ["LoopWaker", "waker_for"]

_WAKERS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWaker | None] = \
    weakref.WeakKeyDictionary()


class LoopWaker:
    """Calls ``deliver(item)`` on one event loop for each item a thread ``wake``s it with.

    Holds no reference to its loop: the pipe closes when the loop is garbage (until then a
    late thread's byte lands in a pipe nobody reads, harmlessly)."""

    __slots__ = ("__weakref__", "_deliver", "_pending", "_queue", "_read", "_write")

    def __init__(self, loop: asyncio.AbstractEventLoop, deliver: Callable[[Any], None]) -> None:
        read, write = os.pipe()
        try:
            os.set_blocking(read, False)
            os.set_blocking(write, False)
            loop.add_reader(read, self._on_readable)
        except BaseException:
            os.close(read)
            os.close(write)
            raise
        self._read, self._write = read, write
        self._deliver = deliver
        self._queue: deque[Any] = deque()
        self._pending = False  # a byte is on its way: no other is needed
        weakref.finalize(loop, _close, read, write)

    def wake(self, item: Any) -> None:
        """From any thread: have ``deliver(item)`` called on the loop soon."""
        self._queue.append(item)
        if not self._pending:
            self._pending = True
            with contextlib.suppress(OSError):  # full (bytes are waiting) or loop gone
                os.write(self._write, b"\0")

    def _on_readable(self) -> None:
        # The bytes go first, then ``_pending``: an item queued from then on writes a byte of
        # its own, and one queued before is taken below. (The other way round, a byte
        # written between the two would be read here with ``_pending`` left set: no later
        # item would ever wake the loop.)
        with contextlib.suppress(OSError):
            os.read(self._read, 4096)
        self._pending = False
        queue, deliver = self._queue, self._deliver
        while queue:
            deliver(queue.popleft())


def _close(*fds: int) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


def waker_for(loop: asyncio.AbstractEventLoop, deliver: Callable[[Any], None]
              ) -> LoopWaker | None:
    """The loop's waker (made on first use; one per loop), or None if it cannot watch a pipe.
    Called on the loop's own thread."""
    try:
        return _WAKERS[loop]
    except KeyError:
        pass
    waker: LoopWaker | None
    try:
        waker = LoopWaker(loop, deliver)
    except (NotImplementedError, AttributeError, OSError, RuntimeError):
        waker = None
    _WAKERS[loop] = waker
    return waker
