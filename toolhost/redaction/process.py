"""What this process hides: every secret of every config it loaded (``remember``), its own
credentials (``remember_own``), ``scrub`` with them all, and ``ScrubbingStream``, which
applies ``scrub`` to ``sys.stdout``/``sys.stderr`` from CLI entry on (so a traceback or a log
line cannot carry a secret either).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from toolhost.redaction.redactor import Redactor
from toolhost.redaction.values import BINARY_KEYS, redact_strings

__all__ = ["ProcessSecrets", "active", "own_secrets", "remember",
           "remember_own", "scrub", "scrub_value"]


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


def scrub_value(value: Any, keep: frozenset[str] = BINARY_KEYS) -> Any:
    """``value`` (JSON-like) with every secret this process knows hidden in its strings, keys
    and numbers (``redact_strings``); the values of ``keep`` keys are left as they are. No
    walk at all while the process knows no secret."""
    hide = active()
    return redact_strings(value, hide.redact, keep) if hide else value
