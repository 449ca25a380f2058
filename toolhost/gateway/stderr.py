"""An upstream's stderr, captured into toolhost's log instead of written over it.

A stdio upstream writes whatever it likes to stderr. Passed through, that text would break a
``TOOLHOST_LOG_FORMAT=json`` stream, skip secret redaction and land in the middle of ``toolhost
run``'s transcript. So the process gets a pipe; a thread reads it line by line into the logger
``toolhost.upstream.<server>`` at the level its first word names (``error:``, ``Traceback``,
``warning:``, ``debug:``; ``toolhost.logformat.line_level``), the rest at ``info`` (shown
with ``-v``). The last lines are kept, so the warning that the
upstream went away can say what it said last.

The upstream decides how much it writes, so the log does not follow it line for line: the
first ``BURST`` lines of a process are logged, then at most ``PER_MINUTE`` a minute; the
rest are counted and said in one line at most once a minute (and when the process ends). A
line longer than ``MAX_LINE`` bytes is cut (its rest dropped, not read as new lines).
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from typing import TextIO

from toolhost.excerpt import cut
from toolhost.logformat import line_level

__all__ = ["StderrLog"]

MAX_LINE = 4096  # bytes of one line (a longer one is cut)
KEPT = 20  # last lines kept for the "went away" warning
BURST = 100  # lines of one process logged before the rate applies
PER_MINUTE = 20  # lines logged a minute after that; the rest counted


class StderrLog:
    """A pipe for one upstream process's stderr, read into the log by a daemon thread."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.log = logging.getLogger(f"toolhost.upstream.{server}")
        self.last: deque[str] = deque(maxlen=KEPT)
        read, write = os.pipe()
        self.file: TextIO = os.fdopen(write, "w")  # the child's stderr (errlog)
        self._reader = os.fdopen(read, "rb")
        threading.Thread(target=self._pump, name=f"upstream-stderr-{server}",
                         daemon=True).start()

    def spawned(self) -> None:
        """The child holds its own copy now (or never will): close ours, so the reader sees
        the end when the process (and whatever it started) is gone."""
        with contextlib.suppress(OSError):
            self.file.close()

    def tail(self) -> str:
        """The last lines it wrote, one string (empty if none)."""
        return " | ".join(self.last)

    def _pump(self) -> None:
        logged, held, allowed, window = 0, 0, BURST, time.monotonic()
        with self._reader:
            while True:
                line = self._reader.readline(MAX_LINE)
                if not line:
                    break
                text = line.rstrip(b"\r\n")
                if len(line) >= MAX_LINE and not line.endswith(b"\n"):  # cut: drop the rest
                    while (rest := self._reader.readline(MAX_LINE)) and \
                            not rest.endswith(b"\n"):
                        pass
                    text += " …(cut)".encode()
                if not text.strip():
                    continue
                decoded = text.decode("utf-8", errors="replace")
                self.last.append(cut(decoded, 300))
                now = time.monotonic()
                if now - window >= 60.0:  # a new minute
                    self._held(held)
                    window, held, logged, allowed = now, 0, 0, PER_MINUTE
                if logged >= allowed:
                    held += 1
                    continue
                logged += 1
                self.log.log(line_level(decoded), "upstream %s: %s", self.server, decoded)
        self._held(held)

    def _held(self, count: int) -> None:
        if count:
            self.log.warning("upstream %s: %s more lines on stderr not shown (at most %d a "
                             "minute are logged)", self.server, f"{count:,}", PER_MINUTE)
