"""Loading and compiling a big config without the cyclic garbage collector running.

A load builds tens of thousands of dicts, lists and tuples that all stay alive: each 700 new
objects start a collection that finds nothing, and the older generations are walked again
and again (1,000 tools: ~230 collections, ~35 ms of a ~180 ms load). The data holds no cycles,
so reference counting frees what is dropped; cycles made meanwhile (an exception's traceback)
wait for the next collection after the load.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["gc_paused", "gc_paused_and_settled"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def gc_paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` with the collector off, and on again after, unless it was off already (a
    program that turned it off keeps it off; a nested call leaves it to the outer one)."""
    return _paused(fn, settle=False)


def gc_paused_and_settled(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """As ``gc_paused``; and the first call of a process that returns (a load) ends with
    every object there is moved to the collector's permanent generation (``gc.freeze``),
    before the collector is on again.

    A load of 1,000 tools leaves ~70,000 new objects that live as long as the program: left
    young, the first collection after the pause walks them all (~13-25 ms; it came as soon
    as the collector was back on, since the pause counted every allocation), and so does
    each of the collections at exit (~40 ms). Frozen, they are never walked; reference
    counting still frees them. The load makes no cyclic garbage
    (``tests/config/test_gcpause.py``), so none is kept; a dropped first host whose servers
    hold a cycle would be (``serve`` and ``run`` keep every build to the end anyway). Only
    the first load: later ones (a reload) happen in a live session, whose pending garbage
    must not be frozen. A program that turned the collector off is left alone."""
    return _paused(fn, settle=True)


_settled = False


def _paused(fn: Callable[_P, _R], *, settle: bool) -> Callable[_P, _R]:
    @functools.wraps(fn)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        global _settled
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            result = fn(*args, **kwargs)
            if settle and not _settled:
                _settled = True
                gc.freeze()  # while still off: it also clears the count of new objects
            return result
        finally:
            gc.enable()

    return paused
