"""A "still waiting" line while a person waits on an upstream: its start, a long call.

A start of ``run``, ``serve``, ``tools``, ``call`` or ``validate --connect`` waits for every
imported server to answer ``initialize`` and list its tools, up to its ``connect_timeout``
(30 s by default, per step), and a call up to its ``timeout`` (10 minutes): without a word,
a person cannot tell a slow upstream from a hung toolhost. So a wait that lasts says so, in
one warning line naming the upstream, how long it has waited and how long it will: first
after ``TOOLHOST_WAIT_NOTICE`` seconds (default 5 for a start, six times that for a call),
then every ``NOTICE_EVERY`` times that. One thread (started on first use) keeps the clock of
every wait; a wait that ends before its first line costs no thread of its own.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from toolhost.env_seconds import env_seconds

__all__ = ["CALL_FACTOR", "NOTICE_ENV", "notice_after", "still_waiting"]

log = logging.getLogger("toolhost.gateway")
NOTICE_ENV = "TOOLHOST_WAIT_NOTICE"
NOTICE_AFTER = 5.0  # s before the first line of a start's wait
CALL_FACTOR = 6.0  # a call's first line comes this many times later (30 s by default)
NOTICE_EVERY = 3.0  # later lines: this many times the first delay apart


def notice_after() -> float:
    """Seconds before the first "still waiting" line of a start (``TOOLHOST_WAIT_NOTICE``,
    0.1 to 3600; 5 by default)."""
    return env_seconds(NOTICE_ENV, NOTICE_AFTER, 0.1, 3600.0, warn=True)


class _Clock:
    """The thread that says the lines of every wait under way, each when it is due."""

    def __init__(self) -> None:
        self._due: list[tuple[float, int]] = []  # (when, wait's number): a heap
        self._waits: dict[int, tuple[float, float, Callable[[float], str]]] = {}
        self._numbers = itertools.count()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, first: float, every: float, say: Callable[[float], str]) -> int:
        with self._cond:
            number = next(self._numbers)
            now = time.monotonic()
            self._waits[number] = (now, every, say)
            heapq.heappush(self._due, (now + first, number))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="toolhost-waiting",
                                                daemon=True)
                self._thread.start()
            self._cond.notify()
            return number

    def remove(self, number: int) -> None:
        with self._cond:
            self._waits.pop(number, None)  # (its heap entry is skipped when due)
            if not self._waits:
                # no wait left: the thread ends now (``add`` starts another). A daemon
                # thread left in a timed wait woke while the interpreter was ending (a
                # command's exit under load) and could crash the process (SIGSEGV)
                self._due.clear()
                self._cond.notify()
            elif len(self._due) > 2 * len(self._waits) + 64:  # many short calls: drop theirs
                self._due = [entry for entry in self._due if entry[1] in self._waits]
                heapq.heapify(self._due)

    def _run(self) -> None:
        while True:
            with self._cond:
                if not self._waits:
                    self._thread = None
                    return
                while not self._due or self._due[0][0] > time.monotonic():
                    self._cond.wait(None if not self._due else
                                    max(0.0, self._due[0][0] - time.monotonic()))
                    if not self._waits:
                        self._thread = None
                        return
                when, number = heapq.heappop(self._due)
                wait = self._waits.get(number)
                if wait is None:
                    continue
                since, every, say = wait
                heapq.heappush(self._due, (when + every, number))
            try:
                line = say(time.monotonic() - since)
            except Exception:  # a line that cannot be said is not worth a crash
                continue
            if line:
                log.warning("%s", line)


_CLOCK = _Clock()


@contextmanager
def still_waiting(say: Callable[[float], str], first: float | None = None) -> Iterator[None]:
    """While the block runs: ``say(seconds waited)`` logged as a warning after ``first``
    seconds (default ``notice_after()``), then every ``NOTICE_EVERY`` times that; an empty
    line is skipped."""
    first = notice_after() if first is None else first
    number = _CLOCK.add(first, first * NOTICE_EVERY, say)
    try:
        yield
    finally:
        _CLOCK.remove(number)
