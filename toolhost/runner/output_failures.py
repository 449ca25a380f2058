"""Where a session's output cannot be written: a run never stops for it, and never hides it.

Two streams, two rules:

- **stderr** carries progress lines, warnings and notes. One that cannot be written (a full
  disk, ``2>&1 | head -1`` once ``head`` has left) is dropped (``QuietStream``): the turn
  still runs. (Before, the first progress line that failed ended the run with status 1
  before the prompt was sent, saying nothing: there was nowhere left to say it.)
- **stdout** carries the transcript (or ``--output json``). A write that fails for any reason
  but the reader leaving (``EPIPE``: ``| head -1`` took what it wanted) is noted
  (``OutputWatch``): the session goes on serving the CLI, and at its end the run says how
  much was lost and exits 1, where it said nothing and exited 0 with a truncated file.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping
from typing import IO, Any

from toolhost.permissions.decision import Decision
from toolhost.runner.render import Renderer
from toolhost.textstream import StreamWrapper

__all__ = ["OutputWatch", "QuietStream"]


class QuietStream(StreamWrapper):
    """A text stream whose failed writes and flushes are dropped (see the module docstring);
    everything else is ``inner``'s."""

    def __init__(self, inner: IO[str]) -> None:
        super().__init__(inner)
        self.failed = 0  # writes dropped

    def write(self, text: str) -> int:
        try:
            self.inner.write(text)
        except (OSError, ValueError):  # ValueError: the stream was closed
            self.failed += 1
        return len(text)

    def flush(self) -> None:
        try:
            self.inner.flush()
        except (OSError, ValueError):
            self.failed += 1


def reader_left(exc: OSError) -> bool:
    """The write failed because nobody reads any more (``EPIPE``): not a loss to report."""
    return isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE


class OutputWatch:
    """A renderer whose failed transcript writes are noted, then raised as before (the
    session's callers already go on past them); ``status`` lines are left to the renderer."""

    def __init__(self, inner: Renderer) -> None:
        self.inner = inner
        self.error: OSError | None = None  # the first failure that was not EPIPE
        self.lost = 0  # messages, decisions and closing lines not written because of it

    def note(self, exc: OSError, lines: int = 1) -> None:
        """Count a transcript write that failed (``exc``) as ``lines`` lost, and keep the
        first failure."""
        if not reader_left(exc):
            self.lost += lines
            if self.error is None:
                self.error = exc

    def message(self, message: Mapping[str, Any]) -> None:
        try:
            self.inner.message(message)
        except OSError as exc:
            self.note(exc)
            raise

    def decision(self, tool_name: str, decision: Decision, *,
                 tool_use_id: str | None = None) -> None:
        try:
            self.inner.decision(tool_name, decision, tool_use_id=tool_use_id)
        except OSError as exc:
            self.note(exc)
            raise

    def status(self, text: str) -> None:
        self.inner.status(text)

    def close(self) -> None:
        try:
            self.inner.close()
        except OSError as exc:
            self.note(exc)
            raise

    def said(self) -> str | None:
        """The line saying what was lost, or None when every write went out (or only the
        reader left)."""
        if self.error is None:
            return None
        why = self.error.strerror or str(self.error) or type(self.error).__name__
        many = "" if self.lost == 1 else "s"
        return (f"the transcript could not be written to stdout ({why}): {self.lost} "
                f"message{many} of the session lost")
