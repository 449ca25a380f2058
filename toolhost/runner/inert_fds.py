"""Descriptors 1 and 2 shown inert: what is written below Python reaches the screen harmless.

``visible.InertStream`` covers ``sys.stdout``/``sys.stderr``, but a tool can write to the
process's file descriptors 1 and 2 without them: ``os.write(1, ...)``, a C extension, a
child process a python tool starts (it inherits them), the worker of an ``isolation:
process`` tool (its prints go to the inherited fd 2). Those bytes reached the terminal as
written: an OSC 52 clipboard write, ``ESC[2J``, a cursor move over a permission question.

While ``toolhost run``'s session runs, ``InertDescriptors`` puts a pipe on fd 1 and on fd 2.
A thread reads them and writes what comes as ``visible(text, lines=True)`` (secrets
scrubbed, as everything toolhost writes) to where fds 1 and 2 pointed before, kept on
private duplicates. toolhost's own output (the transcript, progress and log lines) is
written straight to those duplicates: the Python streams that wrote to fds 1 and 2 are
pointed at them (``adopt``), so its order and colours are as before. ``close`` puts the
descriptors back and shows what was still in the pipes. While a permission question is
open, what comes is held (``held``: ``toolhost.runner.held_output``) and shown once it is
answered.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import select
import sys
import threading
from typing import IO, Any, cast

from toolhost.redaction import ScrubbingStream
from toolhost.runner.held_output import HeldOutput
from toolhost.runner.spill_out import SpillingText
from toolhost.visible import visible

__all__ = ["InertDescriptors"]

READ = 65_536
# After ``close``: the pipes are shown until they stay quiet this long (a child may keep one
# open). Before ``close`` the thread blocks with no timeout (woken by ``_wake``): a timer
# would run the thread every POLL seconds for as long as the session lasts, work that grows
# with wall time (and made bench_instructions' counts move with the machine's load).
POLL = 0.1
DRAIN = 1.0  # seconds ``close`` waits for the thread to show what is left


class InertDescriptors:
    """Pipes on fds 1 and 2 whose bytes are shown inert where those fds pointed before."""

    def __init__(self, fds: tuple[int, ...] = (1, 2)) -> None:
        self.real: dict[int, int] = {}  # fd -> private duplicate of what it was
        self._reads: dict[int, int] = {}  # pipe read end -> the fd it stands on
        self._sinks: dict[int, IO[str]] = {}  # fd -> text stream on its duplicate
        self._adopted: list[tuple[Any, Any]] = []  # (wrapper, its inner before ``adopt``)
        self._stop = threading.Event()
        self._wake: tuple[int, int] | None = None  # (read, write): ``close`` wakes the thread
        self._thread: threading.Thread | None = None
        # what comes while a question is open waits for its answer (``held.asking`` is set
        # once the terminal is open; the terminal releases it as the question ends)
        self.held = HeldOutput()
        same: dict[tuple[int, int], SpillingText] = {}  # by the file fds point to
        for fd in fds:
            try:
                real = os.dup(fd)  # not inherited: no child writes past the filter
            except OSError:
                continue
            read, write = os.pipe()
            os.set_blocking(read, False)
            os.dup2(write, fd)
            os.close(write)
            self.real[fd] = real
            self._reads[read] = fd
            # never waits for a reader that stopped reading (``spill_out``): the session does.
            # One for stdout and stderr on one file (a terminal, ``2>&1 |``): what waits for
            # a slow reader is written in the order it came, whichever stream wrote it
            file = os.fstat(real)
            sink = same.get((file.st_dev, file.st_ino))
            if sink is None:
                sink = same[(file.st_dev, file.st_ino)] = SpillingText(real)
            self._sinks[fd] = cast(IO[str], sink)

    def start(self) -> InertDescriptors:
        self._wake = os.pipe()
        self._thread = threading.Thread(target=self._pump, name="toolhost-inert-fds",
                                        daemon=True)
        self._thread.start()
        return self

    def stream(self, fd: int) -> IO[str]:
        """A text stream on where ``fd`` pointed before (its writes are not filtered)."""
        return self._sinks[fd]

    def adopt(self, *streams: Any) -> None:
        """Point each Python stream that wrote to fd 1 or 2 (through wrappers with an
        ``inner``: ``ScrubbingStream``, ``JsonLines``) at that fd's duplicate; ``close``
        puts them back."""
        done: set[int] = set()
        for stream in streams:
            holder, inner = None, stream
            while hasattr(inner, "inner") and id(inner) not in done:
                done.add(id(inner))
                holder, inner = inner, inner.inner
            try:
                fd = inner.fileno()
            except (AttributeError, OSError, ValueError):
                continue
            if holder is None or fd not in self._sinks or inner is self._sinks[fd]:
                continue
            with contextlib.suppress(OSError, ValueError):
                inner.flush()
            holder.inner = self._sinks[fd]
            self._adopted.append((holder, inner))

    def drop_terminal(self) -> None:
        """After a hang-up: the null device where a duplicate is a terminal (see
        ``commands.run._drop_terminal_output``)."""
        devnull = os.open(os.devnull, os.O_WRONLY)
        own = []  # the sinks' descriptions of their own (``spill_out``)
        for sink in self._sinks.values():
            with contextlib.suppress(OSError, ValueError):
                own.append(sink.fileno())
        for real in {*self.real.values(), *own}:
            with contextlib.suppress(OSError):
                if os.isatty(real):
                    os.dup2(devnull, real)
        os.close(devnull)

    def close(self) -> None:
        """Put fds 1 and 2 (and the adopted streams) back; show what was left in the pipes."""
        self.held.asking = lambda: False  # the session is over: nothing is asked any more
        self.held.release()
        for holder, inner in reversed(self._adopted):
            with contextlib.suppress(OSError, ValueError):
                holder.inner.flush()
            holder.inner = inner
        self._adopted.clear()
        for fd, real in self.real.items():
            with contextlib.suppress(OSError):
                os.dup2(real, fd)  # our end of the pipe goes: the thread sees the rest
        self._stop.set()
        if self._wake is not None:
            with contextlib.suppress(OSError):
                os.write(self._wake[1], b"x")  # the thread blocks with no timeout: wake it
        alive = False
        if self._thread is not None:
            self._thread.join(DRAIN)
            alive = self._thread.is_alive()  # stuck writing (a stopped terminal): leave it
            self._thread = None
        if not alive:
            for read in self._reads:
                with contextlib.suppress(OSError):
                    os.close(read)
            self._reads.clear()
            if self._wake is not None:
                for end in self._wake:
                    with contextlib.suppress(OSError):
                        os.close(end)
                self._wake = None
        for sink in self._sinks.values():
            with contextlib.suppress(OSError, ValueError):
                sink.flush()

    # -- the thread -----------------------------------------------------------------------
    def _pump(self) -> None:
        decoders = {read: codecs.getincrementaldecoder("utf-8")("replace")
                    for read in self._reads}
        shown = {fd: ScrubbingStream(self._sinks[fd]) for fd in self._sinks}
        open_reads = set(self._reads)
        wake = self._wake[0] if self._wake is not None else None
        while open_reads:
            # until ``close``, block: what a question held is released by the terminal as it
            # ends (``after_question``), and by the next write here (``HeldOutput.write``)
            stopping = self._stop.is_set()
            watched = list(open_reads) if wake is None or stopping else [*open_reads, wake]
            try:
                ready, _, _ = select.select(watched, [], [], POLL if stopping else None)
            except (OSError, ValueError):  # a tool closed our descriptors (os.closerange)
                break
            if not ready:
                break  # quiet after close: a child that kept the pipe open says no more
            for read in ready:
                if read == wake:
                    continue  # ``close`` was called: from now on, a quiet POLL ends the loop
                try:
                    data = os.read(read, READ)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                text = decoders[read].decode(data, final=not data)
                out = shown[self._reads[read]]
                if text:
                    with contextlib.suppress(OSError, ValueError):
                        self.held.write(out, visible(text, lines=True), flush=True)
                if not data:
                    open_reads.discard(read)
        for out in shown.values():
            with contextlib.suppress(OSError, ValueError):
                out.finish()

    @classmethod
    def open(cls) -> InertDescriptors:
        """Pipes on fds 1 and 2 with the thread started, and ``sys.stdout``/``sys.stderr``
        adopted."""
        guard = cls().start()
        guard.adopt(sys.stdout, sys.stderr)
        return guard
