"""Log lines wait while a permission question is open at the terminal.

``toolhost run`` holds its transcript lines while the person is asked (``TextRenderer.
hold_while``): a line printed into the question lands after "Allow? ..." and buries it. Log
lines on stderr (a tool's ``ctx.log``, a library's warning, toolhost's own notes) went out
all the same: a tool logging while a parallel call was asked about scrolled the question
away, its answer typed among the lines. ``HeldLogs`` is a filter on the root logger's
handlers for the session: while ``asking()`` holds, records are kept (the first
``MAX_HELD``; the rest counted and said in one line), and they are written, in order, when
the question is over (``release``: at the next record, at the renderer's next line, at the
end of the session).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

__all__ = ["MAX_HELD", "HeldLogs"]

log = logging.getLogger("toolhost.runner")

MAX_HELD = 1000  # records kept while a question is open; later ones are counted


class HeldLogs(logging.Filter):
    """Holds log records while ``asking()`` is true (see the module docstring)."""

    def __init__(self, asking: Callable[[], bool]) -> None:
        super().__init__()
        self.asking = asking
        # by handler: each handler of the root holds its own copy of a record
        self._held: dict[logging.Handler, list[logging.LogRecord]] = {}
        self._over: dict[logging.Handler, int] = {}  # records past MAX_HELD, counted
        self._lock = threading.Lock()  # sync tools log from worker threads
        self._releasing = threading.local()
        self._handlers: list[logging.Handler] = []

    def install(self) -> HeldLogs:
        """Put this filter on every handler of the root logger (``remove`` takes it off)."""
        self._handlers = list(logging.getLogger().handlers)
        for handler in self._handlers:
            handler.addFilter(_Bound(self, handler))
        return self

    def remove(self) -> None:
        """Write what is held, and take the filter off the handlers."""
        self.release()
        for handler in self._handlers:
            for bound in [f for f in handler.filters if isinstance(f, _Bound) and f.held is self]:
                handler.removeFilter(bound)
        self._handlers = []

    def keep(self, handler: logging.Handler, record: logging.LogRecord) -> bool:
        """Whether ``record`` goes out now through ``handler`` (else it is held)."""
        if getattr(self._releasing, "on", False):
            return True
        if self.asking():
            with self._lock:
                kept = self._held.setdefault(handler, [])
                if len(kept) < MAX_HELD:
                    kept.append(record)
                else:
                    self._over[handler] = self._over.get(handler, 0) + 1
            return False
        if self._held:
            self.release()
        return True

    def release(self) -> None:
        """Write the records held, in order (then how many were past ``MAX_HELD``)."""
        if not self._held:
            return
        with self._lock:
            held, self._held = self._held, {}
            over, self._over = self._over, {}
        self._releasing.on = True
        try:
            for handler, records in held.items():
                for record in records:
                    handler.handle(record)
                if over.get(handler) and handler.level <= logging.WARNING:
                    handler.handle(log.makeRecord(
                        log.name, logging.WARNING, __file__, 0,
                        "(%d more log lines came while a question was open; the first %d "
                        "were kept)", (over[handler], MAX_HELD), None))
        finally:
            self._releasing.on = False


class _Bound(logging.Filter):
    """``HeldLogs`` as one handler's filter (a record is held with the handler it was for)."""

    def __init__(self, held: HeldLogs, handler: logging.Handler) -> None:
        super().__init__()
        self.held = held
        self.handler = handler

    def filter(self, record: logging.LogRecord) -> bool:
        return self.held.keep(self.handler, record)
