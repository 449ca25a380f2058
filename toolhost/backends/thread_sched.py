"""How a sync-tool pool thread is scheduled by the OS while it waits, and while it works."""

from __future__ import annotations

import contextlib
import os

__all__ = ["Scheduling"]


class Scheduling:
    """A pool thread waits for work as *batch* work (Linux ``SCHED_BATCH``) and runs a call
    as normal work.

    Why: handing a call to a sleeping pool thread wakes it, and the kernel switched to it at
    once, although it could do nothing before the event loop let go of the GIL: two wasted
    context switches per call, the largest part of a sync tool's round trip on a busy CPU. A
    batch thread does not preempt on wake-up, so it runs as soon as the loop waits (or on
    another CPU). It turns normal before the tool runs, so the tool's own threads and child
    processes never inherit the batch policy. Where the OS has no such policy, or refuses a
    change, the thread stays normal.

    Each change is a system call (~2 µs of CPU here), so a thread changes only what
    differs: ``waiting`` on a batch thread costs nothing, ``working`` on a normal one a
    query of the policy (~0.2 µs: a tool may have changed its own thread's). The pool asks
    for batch only after a call that came from a busy event loop
    (``toolhost.backends.threads``): an idle loop gives the CPU away itself while the call
    runs, so the wake-up cannot preempt it, and its sequential calls pay no change at all."""

    __slots__ = ("batch", "enabled")

    def __init__(self) -> None:
        # Linux only; a policy the user chose for the process (inherited by new threads) stays
        self.enabled = hasattr(os, "SCHED_BATCH") and hasattr(os, "sched_setscheduler")
        if self.enabled:
            try:
                self.enabled = os.sched_getscheduler(0) == os.SCHED_OTHER
            except OSError:
                self.enabled = False
        self.batch = False  # what this thread is now

    def waiting(self) -> None:
        if self.enabled and not self.batch:
            self._set(os.SCHED_BATCH)

    def working(self) -> None:
        if self.batch or (self.enabled and self._other_policy()):
            self._set(os.SCHED_OTHER)

    @staticmethod
    def _other_policy() -> bool:
        """Whether this thread left normal scheduling by other means (a tool's own
        ``os.sched_setscheduler(0, ...)`` in its call): asked, ~10x cheaper than a change."""
        try:
            return os.sched_getscheduler(0) != os.SCHED_OTHER
        except OSError:
            return False

    def _set(self, policy: int) -> None:
        try:
            os.sched_setscheduler(0, policy, os.sched_param(0))  # 0: this thread
            self.batch = policy != os.SCHED_OTHER
        except OSError:
            self.enabled = self.batch = False
            with contextlib.suppress(OSError):  # never leave a tool batch scheduled
                os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
