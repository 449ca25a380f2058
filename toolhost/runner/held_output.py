"""Output written while a permission question is open waits until it is answered.

``toolhost run`` holds its transcript lines (``TextRenderer.hold_while``) and log records
(``held_logs``) while a person is asked, but what a tool wrote itself went out at once,
into the question: ``os.write(2, ...)``, a child process a python tool starts, an
``isolation: process`` worker's prints (all read from the pipes on fds 1 and 2 by
``inert_fds``), and ``print(..., file=sys.stderr)`` by in-process code. It landed after
"Allow? ...: " and tore the line the person was typing the answer on.

``HeldOutput`` is the one place those writes pass: while ``asking()`` holds, each write is
kept (the first ``MAX_HELD`` characters; the rest counted and said in one line) and they go
out, in the order they came, when the question is over (``release``: the terminal calls it
as its question ends; a later write, and ``InertDescriptors.close``, release too). Nothing
waits: a tool writing while the person thinks is never blocked (an in-process tool writing
on the event loop would stop the very read that answers the question).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import IO, Protocol

from toolhost.textstream import StreamWrapper

__all__ = ["MAX_HELD", "NOTES", "HeldOutput", "HoldingStream", "Sink"]

MAX_HELD = 1 << 20  # characters kept while a question is open; later ones are counted
# True in a task whose writes are toolhost's own notes about the question's very rules (the
# reloader's "toolhost: reloaded"): shown at once, a question open or not
NOTES: ContextVar[bool] = ContextVar("toolhost_notes", default=False)


class Sink(Protocol):
    """Where held text goes: a text stream (only ``write`` and ``flush`` are used)."""

    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


def _never() -> bool:
    return False


class HeldOutput:
    """Writes to text streams, held while ``asking()`` is true (see the module docstring).
    Thread-safe: the ``inert_fds`` thread and the event loop both write through it."""

    def __init__(self, asking: Callable[[], bool] = _never) -> None:
        self.asking = asking
        self._held: list[tuple[Sink, str]] = []
        self._size = 0
        self._over = 0  # characters past MAX_HELD, dropped (counted)
        self._lock = threading.RLock()  # also keeps the order of writes from two threads

    def write(self, out: Sink, text: str, *, flush: bool = False) -> None:
        """Write ``text`` to ``out`` now, or keep it while a question is open."""
        with self._lock:
            if self.asking() and not NOTES.get():
                if self._size + len(text) <= MAX_HELD:
                    self._held.append((out, text))
                    self._size += len(text)
                else:
                    self._over += len(text)
                return
            self._release()
            out.write(text)
            if flush:
                out.flush()

    def release(self) -> None:
        """Write what is held, in order (then how much was past ``MAX_HELD``). A stream that
        fails keeps the rest from coming (a terminal gone): nothing is raised."""
        with self._lock:
            self._release()

    def _release(self) -> None:
        if not self._held and not self._over:
            return
        held, self._held, self._size = self._held, [], 0
        over, self._over = self._over, 0
        last: Sink | None = None
        try:
            for out, text in held:
                if last is not None and out is not last:
                    last.flush()
                out.write(text)
                last = out
            if over and last is not None:
                last.write(f"(toolhost: {over:,} more characters were written while a "
                           f"question was open; the first {MAX_HELD:,} were kept)\n")
            if last is not None:
                last.flush()
        except (OSError, ValueError):
            pass  # the terminal went away (a hang-up): nothing more can be shown


class HoldingStream(StreamWrapper):
    """A text stream whose writes go through ``held`` to ``inner`` (``sys.stdout`` and
    ``sys.stderr`` under ``toolhost run``); everything else is ``inner``'s."""

    def __init__(self, inner: IO[str], held: HeldOutput) -> None:
        super().__init__(inner)
        self.held = held

    def write(self, text: str) -> int:
        self.held.write(self.inner, text)
        return len(text)
