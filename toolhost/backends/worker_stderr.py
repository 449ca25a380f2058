"""A worker's file descriptors 1 and 2, read back through its scrubbed stderr.

A python tool's ``print`` and logging go through the worker's scrubbing stream, but bytes
written to the descriptors themselves (a C extension, a child process the tool starts) would
reach the host's stderr as they are: secrets and all, and not JSON lines under
``TOOLHOST_LOG_FORMAT=json``. So fds 1 and 2 are a pipe this process reads on a thread of its
own, writing what comes to the scrubbing stream; the real stderr stays on a private
descriptor. Before each answer the worker drains the pipe (a marker written to it through a
descriptor of its own, whatever the tool did with fd 2, and waited for), so what a call wrote
is out before the host may end the worker.
"""

from __future__ import annotations

import codecs
import os
import threading
from typing import IO, Any

__all__ = ["Diverted"]

# written to the pipe by drain(): one write of fewer than PIPE_BUF bytes is never split or
# interleaved with another writer's
MARK = b"\x00\x1btoolhost-drain\x00"
DRAIN_SECONDS = 1.0  # at most this long per answer (a child writing without end: go on)


class Diverted:
    """The reading end of fds 1 and 2 and the thread copying it to ``stream``."""

    def __init__(self, read: int, mark: int, stream: Any) -> None:
        self._read = read
        self._mark = mark  # the pipe's write end, ours alone: a tool may move fd 2
        self._stream = stream
        self._drained = threading.Event()
        self._decoder = codecs.getincrementaldecoder("utf-8")("backslashreplace")

    @staticmethod
    def real_stderr() -> IO[str]:
        """The process's stderr on a descriptor of its own (call before ``start``)."""
        return os.fdopen(os.dup(2), "w", buffering=1, encoding="utf-8",
                         errors="backslashreplace")

    @classmethod
    def start(cls, stream: Any) -> Diverted:
        """Point fds 1 and 2 at a pipe and copy what comes to ``stream`` from now on."""
        read, write = os.pipe()  # neither inherited by the tool's children
        os.dup2(write, 2)
        os.dup2(write, 1)
        diverted = cls(read, write, stream)
        threading.Thread(target=diverted._pump, daemon=True, name="toolhost-fd2").start()
        return diverted

    def drain(self) -> None:
        """Return once what was written to fds 1 and 2 before this call is on ``stream``."""
        self._drained.clear()
        try:
            os.write(self._mark, MARK)
        except OSError:
            return
        self._drained.wait(DRAIN_SECONDS)

    def _pump(self) -> None:
        # never stops reading while the process lives: a full pipe would block the writers
        held = b""
        while chunk := os.read(self._read, 65_536):
            held += chunk
            while (at := held.find(MARK)) >= 0:
                self._emit(held[:at])
                held = held[at + len(MARK):]
                self._drained.set()
            keep = _partial_mark(held)
            self._emit(held[:len(held) - keep])
            held = held[len(held) - keep:]

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
