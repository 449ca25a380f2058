"""The cyclic garbage collector during the start of a command that then runs for long.

A start imports modules and loads and compiles a config: tens of thousands of objects that
live as long as the process and hold no garbage. Every 700 new objects the collector walks
the young ones and frees next to nothing (``toolhost serve`` of the demo config: ~45
collections, ~10 ms before its first answer). So it is off while the command starts; once
the command is under way, what the start made is frozen (``gc.freeze``: no collection walks
it again) and the collector is on as before. A command that is all start (``validate``) keeps
it off until it ends.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

__all__ = ["collector_off_until_started"]


@contextlib.contextmanager
def collector_off_until_started() -> Iterator[Callable[[], None]]:
    """The collector is off in this block until the function it gives is called (the command
    is under way: the start's objects are frozen and the collector on). Leaving the block
    before turns it back on. A program that turned the collector off keeps it off."""
    was_on = gc.isenabled()
    done = False

    def started() -> None:
        nonlocal done
        if was_on and not done:
            gc.freeze()
            gc.enable()
        done = True

    gc.disable()
    try:
        yield started
    finally:
        if was_on and not done:
            gc.enable()
