"""``ScrubbingStream``: ``sys.stdout``/``sys.stderr`` scrubbed of every secret this process
knows (``toolhost.redaction.process``), from CLI entry on.

Kept outside the ``toolhost.redaction`` package, which it imports only when there is
something to hide or to hold back: a secret is known only once ``redaction.process`` has
``remember``ed it, so while that module is not loaded a whole line is written as it is, and
``toolhost --help`` does not load the redaction machinery (~40% of its CPU past the
interpreter's own start, issue #18).
"""

from __future__ import annotations

import sys
import threading
from typing import IO, Any

from toolhost.textstream import StreamWrapper

__all__ = ["ScrubbingStream"]

_PROCESS = "toolhost.redaction.process"


def _process() -> Any:
    import toolhost.redaction.process as process  # (loaded once something needs it)

    return process


class ScrubbingStream(StreamWrapper):
    """A text stream that scrubs what it writes before ``inner`` sees it.

    Text is written a line at a time (or past ``HOLD`` characters with no line break), and an
    end that could still be the start of a secret in any form (a secret may hold line breaks:
    a PEM key) waits for what comes next (``Redactor.stream_split``): a secret written in
    pieces, or cut at ``HOLD``, is still one match. ``flush`` writes what no continuation can
    change; ``finish`` (at the end) writes the rest.
    """

    HOLD = 65_536

    def __init__(self, inner: IO[str]) -> None:
        super().__init__(inner)
        self._held = ""
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        with self._lock:
            process = sys.modules.get(_PROCESS)
            if not self._held and text.endswith("\n") and (
                    process is None or process.active()._pattern is None):
                # whole lines, and no secret known: nothing to hold back or hide (a line
                # decided per call, e.g. a permission decision, takes this path)
                self.inner.write(text)
                return len(text)
            self._held += text
            cut = self._held.rfind("\n") + 1
            if len(self._held) > self.HOLD:
                cut = len(self._held)
            if cut:
                self._out(cut)
        return len(text)

    def _out(self, cut: int, *, pieces: bool = True) -> None:
        # the part up to ``cut`` less its open tail, which goes back before the rest
        shown, held = _process().active().stream_split(self._held[:cut], pieces=pieces)
        self._held = held + self._held[cut:]
        if shown:
            self.inner.write(shown)

    def flush(self) -> None:
        if self._held:  # (only written under the lock; nothing held: no lock to take)
            with self._lock:
                if self._held:  # a line flushed unfinished (a prompt) is shown now
                    self._out(len(self._held), pieces=False)
        self.inner.flush()

    def finish(self) -> None:
        """Write everything held, redacted (nothing more will follow), and flush."""
        with self._lock:
            out, self._held = self._held, ""
            if out:
                self.inner.write(_process().scrub(out))
        self.inner.flush()
