"""What keeps one in-process sync tool from harming the host: the recursion limit is capped
(see ``toolhost.backends.threads``), and an exception's traceback is cut short."""

from __future__ import annotations

import logging
import sys

__all__ = ["MAX_RECURSION_LIMIT", "MAX_TRACEBACK_FRAMES", "cap_recursion_limit",
           "short_traceback"]

log = logging.getLogger("toolhost.call")

MAX_RECURSION_LIMIT = 20_000  # unwinding this many frames takes milliseconds
MAX_TRACEBACK_FRAMES = 60


def short_traceback(exc: BaseException) -> BaseException:
    """``exc`` with its traceback cut after ``MAX_TRACEBACK_FRAMES`` frames: a RecursionError's
    thousands of frames took the event loop over a second to log."""
    tb = exc.__traceback__
    for _ in range(MAX_TRACEBACK_FRAMES):
        if tb is None:
            return exc
        tb = tb.tb_next
    if tb is not None:
        cut = exc.__traceback__
        for _ in range(MAX_TRACEBACK_FRAMES - 1):
            assert cut is not None
            cut = cut.tb_next
        assert cut is not None
        cut.tb_next = None
    return exc


def cap_recursion_limit() -> None:
    """Make ``sys.setrecursionlimit`` refuse to go past ``MAX_RECURSION_LIMIT``."""
    original = sys.setrecursionlimit
    if getattr(original, "_toolhost_capped", False):
        return

    def setrecursionlimit(limit: int) -> None:
        if limit > MAX_RECURSION_LIMIT:
            log.warning("sys.setrecursionlimit(%d) capped at %d: in-process python tools "
                        "share the host's interpreter (isolation: process has no cap)",
                        limit, MAX_RECURSION_LIMIT)
            limit = MAX_RECURSION_LIMIT
        original(limit)

    setrecursionlimit._toolhost_capped = True  # type: ignore[attr-defined]
    sys.setrecursionlimit = setrecursionlimit
