"""Non-daemon threads started while code was imported into the host (a plugin, a python
tool's module) must not hold the host's exit.

Python waits for every non-daemon thread at exit: a module that starts a poller thread at
import kept ``toolhost validate`` from ever ending. ``threads_noted`` records the threads a
block starts (with who loaded them); ``leave_threads`` waits for them at the end of the
process's own command line for ``THREAD_GRACE`` seconds in all, names the ones still
running, runs the exit hooks and ends the process without them. A light module (the
standard library only): the python backend uses it without importing ``toolhost.plugins``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
from collections.abc import Iterable, Iterator

__all__ = ["THREAD_GRACE", "leave_threads", "note_threads", "threads_noted"]

log = logging.getLogger("toolhost.plugins")

# the non-daemon threads code started while it loaded, with what loaded it ("plugin 'x'",
# "python tool module 'y'")
_THREADS: list[tuple[str, threading.Thread]] = []
THREAD_GRACE = 2.0  # seconds those threads get to end at exit, in all
_REAL_EXIT = os._exit  # (a plugin's load replaces os._exit for a while; this is before)


def note_threads(owner: str, before: Iterable[threading.Thread]) -> None:
    """Record the live non-daemon threads that are not in ``before`` as ``owner``'s."""
    known = set(before)
    _THREADS.extend((owner, thread) for thread in threading.enumerate()
                    if thread not in known and not thread.daemon)


@contextlib.contextmanager
def threads_noted(owner: str) -> Iterator[None]:
    """Record the non-daemon threads the block starts as ``owner``'s."""
    before = set(threading.enumerate())
    try:
        yield
    finally:
        note_threads(owner, before)


def leave_threads(code: int) -> None:
    """At the end of the process's own command line: the recorded threads are waited for,
    as Python would, but for ``THREAD_GRACE`` seconds in all; one still running then is
    named, the exit hooks run, and the process ends with ``code`` without it."""
    import time

    deadline = time.monotonic() + THREAD_GRACE
    for _, thread in _THREADS:
        thread.join(max(0.0, deadline - time.monotonic()))
    alive = [(owner, thread) for owner, thread in _THREADS if thread.is_alive()]
    if not alive:
        return
    for owner, thread in alive:
        log.warning("%s left a thread running (%s, started while it loaded, not a daemon "
                    "thread): toolhost exits without waiting for it", owner, thread.name)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    _REAL_EXIT(code)
