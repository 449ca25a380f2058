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

__all__ = ["gc_paused", "settle_once"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def gc_paused(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run ``fn`` with the collector off, and on again after, unless it was off already (a
    program that turned it off keeps it off; a nested call leaves it to the outer one)."""

    @functools.wraps(fn)
    def paused(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()

    return paused



_settled = False


def settle_once() -> None:
    """After a process's first load (``toolhost.host.load_host``): move every object there
    is to the collector's permanent generation (``gc.freeze``), once.

    A load of 1,000 tools leaves ~70,000 new objects that live as long as the program: left
    young, the next collection walks them all (~25 ms), and so does each of the collections
    at exit (~40 ms). Frozen, they are never walked; reference counting still frees them.
    The load makes no cyclic garbage (``tests/config/test_gcpause.py``), so none is kept;
    a dropped first host whose servers hold a cycle would be (``serve`` and ``run`` keep
    every build to the end anyway). Only the first load: later ones (a reload) happen in a
    live session, whose pending garbage must not be frozen. A program that turned the
    collector off is left alone."""
    global _settled
    if _settled or not gc.isenabled():
        return
    _settled = True
    gc.freeze()
