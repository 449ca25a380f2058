"""An upstream's stderr, captured into toolhost's log instead of written over it.

A stdio upstream writes whatever it likes to stderr. Passed through, that text would break a
``TOOLHOST_LOG_FORMAT=json`` stream, skip secret redaction and land in the middle of ``toolhost
run``'s transcript. So the process gets a pipe; a thread reads it line by line into the logger
``toolhost.upstream.<server>`` at the level its first word names (``error:``, ``Traceback``,
``warning:``, ``debug:``; ``toolhost.logformat.line_level``), the rest at ``info`` (shown
with ``-v``). The last lines are kept, so the warning that the
upstream went away can say what it said last. Secrets are hidden in the text as one stream,
before it is cut into lines: a secret cut by a read, or holding a line break, is one ``***``;
one the upstream was writing when it stopped hides its start too.

The upstream decides how much it writes, so the log does not follow it line for line: the
first ``BURST`` lines of a process are logged, then at most ``PER_MINUTE`` a minute; the
rest are counted and said in one line at most once a minute (and when the process ends). A
line longer than ``MAX_LINE`` bytes is cut (its rest dropped, not read as new lines).
"""

from __future__ import annotations

import codecs
import contextlib
import logging
import os
import threading
import time
from collections import deque
from typing import TextIO

from toolhost.excerpt import cut
from toolhost.logformat import line_level
from toolhost.redaction import active

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
        # the rate: lines logged and held back in this minute, how many it allows, its start
        self._logged, self._held, self._allowed, self._window = 0, 0, BURST, time.monotonic()
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
        # Secrets are hidden in the stream as a whole before it is cut into lines
        # (``Redactor.stream_split``): a secret cut at the MAX_LINE read, or holding a line
        # break (a PEM key), is one match, never two halves in two log lines.
        decode = codecs.getincrementaldecoder("utf-8")(errors="replace").decode
        line = ""  # the start of the current line, secrets hidden: final
        held = ""  # raw text after it, where a secret may still be on its way
        cutting = False  # the rest of a line longer than MAX_LINE: dropped
        with self._reader:
            while True:
                chunk = self._reader.readline(MAX_LINE)
                text = held + decode(chunk, final=not chunk)
                # at the end, what is held may be the start of a secret the upstream was
                # writing when it was stopped: masked as at any cut
                shown, held = active().stream_split(text) if chunk else (
                    active().cut_edges(text, tail=True), "")
                *lines, line = (line + shown).split("\n")
                for each in lines:
                    if cutting:  # only the first can end a cut line
                        cutting = False
                        continue
                    self._line(each)
                if not chunk:
                    if not cutting:
                        self._line(line)
                    self._say_held()
                    return
                if len(line.encode()) >= MAX_LINE:
                    if not cutting:
                        self._line(line + " …(cut)")
                        cutting = True
                    line = ""

    def _line(self, text: str) -> None:
        text = text.rstrip("\r")
        if not text.strip():
            return
        self.last.append(cut(text, 300))
        now = time.monotonic()
        if now - self._window >= 60.0:  # a new minute
            self._say_held()
            self._window, self._logged, self._allowed = now, 0, PER_MINUTE
        if self._logged >= self._allowed:
            self._held += 1
            return
        self._logged += 1
        self.log.log(line_level(text), "upstream %s: %s", self.server, text)

    def _say_held(self) -> None:
        if self._held:
            self.log.warning("upstream %s: %s more lines on stderr not shown (at most %d a "
                             "minute are logged)", self.server, f"{self._held:,}", PER_MINUTE)
            self._held = 0
