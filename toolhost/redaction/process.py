"""What this process hides: every secret of every config it loaded (``remember``), its own
credentials (``remember_own``), ``scrub`` with them all, and ``ScrubbingStream``, which
applies ``scrub`` to ``sys.stdout``/``sys.stderr`` from CLI entry on (so a traceback or a log
line cannot carry a secret either).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO

from toolhost.redaction.redactor import Redactor
from toolhost.textstream import StreamWrapper

__all__ = ["ProcessSecrets", "ScrubbingStream", "active", "own_secrets", "remember",
           "remember_own", "scrub"]


@dataclass(frozen=True)
class ProcessSecrets:
    """What this process hides: every secret ``remember``ed (``hide``), and among them its own
    credentials (``own``). One value, swapped whole under ``_lock``, so both always agree."""

    hide: Redactor
    own: frozenset[str] = frozenset()


_lock = threading.Lock()
_state = ProcessSecrets(Redactor())


def remember(secrets: Iterable[str]) -> None:
    """Add secrets to the ones this process hides in everything it writes (never forgotten:
    a reload that drops a secret must not let an earlier copy of it out)."""
    global _state
    with _lock:
        _state = ProcessSecrets(_state.hide.union(secrets), _state.own)


def remember_own(secrets: Iterable[str]) -> None:
    """The process's own credentials (``serve``'s bearer token, its session secret): hidden
    from now on like ``remember``, and one of the secrets of every config loaded after this,
    so a tool's result, prints and errors hide them as they hide a config's ``${SECRET}``."""
    global _state
    values = frozenset(s for s in secrets if s)
    with _lock:
        _state = ProcessSecrets(_state.hide.union(values), _state.own | values)


def own_secrets() -> frozenset[str]:
    """The credentials ``remember_own`` was given."""
    return _state.own


def active() -> Redactor:
    """The process-wide ``Redactor`` (every secret ``remember``ed so far)."""
    return _state.hide


def scrub(text: str) -> str:
    """``text`` with every secret this process knows hidden."""
    return _state.hide.redact(text)


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
            if not self._held and text.endswith("\n") and _state.hide._pattern is None:
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

    def _out(self, cut: int) -> None:
        # the part up to ``cut`` less its open tail, which goes back before the rest
        shown, held = active().stream_split(self._held[:cut])
        self._held = held + self._held[cut:]
        if shown:
            self.inner.write(shown)

    def flush(self) -> None:
        if self._held:  # (only written under the lock; nothing held: no lock to take)
            with self._lock:
                if self._held:
                    self._out(len(self._held))
        self.inner.flush()

    def finish(self) -> None:
        """Write everything held, redacted (nothing more will follow), and flush."""
        with self._lock:
            out, self._held = self._held, ""
            if out:
                self.inner.write(scrub(out))
        self.inner.flush()
