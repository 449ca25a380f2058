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

__all__ = ["gc_paused"]

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
