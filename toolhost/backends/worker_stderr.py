"""A worker's file descriptors 1 and 2, read by the host through its own scrubbing stream.

A worker is sent no secret value (a hostile tool could read it back in its own process), so
it cannot hide one in what its tool prints, logs, or writes below Python (a C extension, a
child process): the host does. The worker's stderr (its fd 1 points there too) is a pipe the
host reads (one thread reads the pipes of every worker: a thread each would be as many
threads as warm workers), into a ``ScrubbingStream`` over the host's ``sys.stderr``
of the moment (itself scrubbed, and JSON lines under ``TOOLHOST_LOG_FORMAT=json``, from CLI
entry on): a secret split across writes is still one match.

Before each answer the worker writes ``MARK`` to the pipe through a descriptor of its own
(whatever the tool did with fd 2), and the host waits for it (at most ``DRAIN_SECONDS``), so
what a call wrote is out before its result. A tool that writes ``MARK`` itself only makes a
later wait shorter; the mark is never shown.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import selectors
import sys
import threading

from toolhost.scrub_stream import ScrubbingStream

__all__ = ["DRAIN_SECONDS", "MARK", "WorkerOutput"]

# one write of fewer than PIPE_BUF bytes is never split or interleaved with another writer's
MARK = b"\x00\x1btoolhost-drain\x00"
DRAIN_SECONDS = 1.0  # at most this long per answer (a child writing without end: go on)


class _HostStderr:
    """The host's ``sys.stderr`` of the moment (the CLI wraps it after workers may start)."""

    def write(self, text: str) -> int:
        stream = sys.stderr
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.write(text)
        return len(text)

    def flush(self) -> None:
        stream = sys.stderr
        if stream is not None:
            with contextlib.suppress(OSError, ValueError):
                stream.flush()


class _CutStream(ScrubbingStream):
    """A ``ScrubbingStream`` whose ``finish`` reads its held end as cut: a worker killed at
    its timeout stops in the middle of what it writes, and the start of a secret held back
    (shorter than a piece of one is known by) would be shown as it is."""

    def finish(self) -> None:
        from toolhost.redaction import active

        with self._lock:
            out, self._held = self._held, ""
            if out:
                self.inner.write(active().cut_edges(out, tail=True))
        self.inner.flush()


class WorkerOutput:
    """The pipe a worker's fds 1 and 2 write to, read by the host's ``_Reader``."""

    def __init__(self) -> None:
        self._read, self.child_fd = os.pipe()  # child_fd: the worker's stderr
        self._stream = _CutStream(_HostStderr())  # type: ignore[arg-type]
        self._marks = 0  # MARKs read so far (the worker's answers whose output is out)
        self._held = b""  # what could be the start of a MARK
        self._ended = False
        self._seen = threading.Condition()
        self._decoder = codecs.getincrementaldecoder("utf-8")("backslashreplace")

    def started(self) -> None:
        """The worker holds its copy of the pipe's writing end: close ours (the reader sees
        the end once the worker and all it started are gone) and start reading."""
        os.close(self.child_fd)
        _READER.add(self._read, self)

    def not_started(self) -> None:
        """The worker never started: close both ends."""
        for fd in (self.child_fd, self._read):
            with contextlib.suppress(OSError):
                os.close(fd)

    def out(self, answers: int) -> bool:
        """Whether the output of the worker's first ``answers`` answers is written (or the
        worker's pipe ended): no wait."""
        return self._ended or self._marks >= answers

    def wait(self, answers: int) -> None:
        """Return once ``out(answers)``, or after ``DRAIN_SECONDS``."""
        with self._seen:
            self._seen.wait_for(lambda: self.out(answers), DRAIN_SECONDS)

    def feed(self, chunk: bytes) -> None:
        """Bytes read from the pipe (on the reading thread)."""
        held = self._held + chunk
        while (at := held.find(MARK)) >= 0:
            self._emit(held[:at])
            held = held[at + len(MARK):]
            with self._seen:
                self._marks += 1
                self._seen.notify_all()
        keep = _partial_mark(held)
        self._emit(held[:len(held) - keep])
        self._held = held[len(held) - keep:]

    def end(self) -> None:
        """The pipe ended (the reading thread closed it): write what is left."""
        self._emit(self._held)
        with contextlib.suppress(Exception):
            self._stream.write(self._decoder.decode(b"", final=True))
            self._stream.finish()  # what waited for a continuation that never will
        with self._seen:
            self._ended = True
            self._seen.notify_all()

    def _emit(self, data: bytes) -> None:
        if not data:
            return
        try:
            self._stream.write(self._decoder.decode(data))
            self._stream.flush()  # keeps back only what could still start a secret
        except Exception:  # a stream that cannot write: drop it, keep draining
            pass


def _partial_mark(data: bytes) -> int:
    """How many bytes at the end of ``data`` could be the start of a ``MARK``."""
    for size in range(min(len(MARK) - 1, len(data)), 0, -1):
        if data.endswith(MARK[:size]):
            return size
    return 0


class _Reader:
    """The one thread reading every worker's pipe, started with the first worker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._selector: selectors.BaseSelector | None = None
        self._wake = (-1, -1)
        self._new: list[tuple[int, WorkerOutput]] = []

    def add(self, fd: int, output: WorkerOutput) -> None:
        if os.name == "nt":  # (no select on pipes there: a thread each)
            threading.Thread(target=_read_all, args=(fd, output), daemon=True,
                             name="toolhost-worker-output").start()
            return
        with self._lock:
            if self._selector is None:
                self._selector = selectors.DefaultSelector()
                self._wake = os.pipe()
                self._selector.register(self._wake[0], selectors.EVENT_READ)
                threading.Thread(target=self._run, args=(self._selector,), daemon=True,
                                 name="toolhost-worker-output").start()
            self._new.append((fd, output))
        os.write(self._wake[1], b"\0")

    def _run(self, selector: selectors.BaseSelector) -> None:
        while True:
            for key, _ in selector.select():
                if key.data is None:  # a worker to read from now on
                    os.read(self._wake[0], 4096)
                    with self._lock:
                        new, self._new = self._new, []
                    for fd, output in new:
                        selector.register(fd, selectors.EVENT_READ, output)
                    continue
                try:
                    chunk = os.read(key.fd, 65_536)
                    if chunk:
                        key.data.feed(chunk)
                        continue
                except Exception:  # one worker's failure must not stop the others' output
                    pass
                selector.unregister(key.fd)
                with contextlib.suppress(OSError):
                    os.close(key.fd)
                with contextlib.suppress(Exception):
                    key.data.end()

    def forget(self) -> None:
        """In a forked child: the parent's reading thread is not there (a new one starts
        with the child's first worker)."""
        self.__init__()  # type: ignore[misc]


def _read_all(fd: int, output: WorkerOutput) -> None:
    try:
        while chunk := os.read(fd, 65_536):
            output.feed(chunk)
    except OSError:
        pass
    os.close(fd)
    output.end()


_READER = _Reader()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_READER.forget)
