"""Who is calling: the identity an authenticated transport vouches for, and rules about it.

``toolhost serve --transport http`` with ``--auth-issuer`` validates each request's OAuth
access token and makes its caller (subject, scopes, groups) current while the request is
handled (:func:`as_caller`). A rule with ``callers:`` applies only to calls whose caller
matches it; a call without a caller (stdio, ``toolhost run``, HTTP without auth) never
matches such a rule, so an allow restricted to callers lets nobody else through. The audit
log records the caller of every decision.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["CALLER_KEYS", "Caller", "CallerMatch", "as_caller", "current_caller",
           "parse_callers"]

CALLER_KEYS = ("subjects", "groups", "scopes")


@dataclass(frozen=True)
class Caller:
    """An authenticated caller (from a validated access token)."""

    subject: str
    scopes: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    issuer: str = ""

    def to_audit(self) -> dict[str, Any]:
        return {"sub": self.subject, "iss": self.issuer, "scopes": sorted(self.scopes),
                "groups": sorted(self.groups)}


@dataclass(frozen=True)
class CallerMatch:
    """A rule's ``callers:``: any listed subject, group or scope admits the caller."""

    subjects: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    scopes: frozenset[str] = frozenset()

    def admits(self, caller: Caller | None) -> bool:
        if caller is None:
            return False
        return (caller.subject in self.subjects or bool(caller.groups & self.groups)
                or bool(caller.scopes & self.scopes))

    def admits_current(self) -> bool:
        """Whether the caller of the request being handled is admitted."""
        return self.admits(_CURRENT.get())

    def describe(self) -> str:
        parts = [f"{k} {sorted(v)}" for k, v in
                 (("subjects", self.subjects), ("groups", self.groups), ("scopes", self.scopes))
                 if v]
        return "callers " + ", ".join(parts)


def parse_callers(value: Any) -> CallerMatch:
    """A rule's ``callers`` mapping; raises ValueError saying what is wrong."""
    if not isinstance(value, Mapping):
        raise ValueError("callers must be a mapping of subjects, groups and/or scopes")
    unknown = [str(k) for k in value if k not in CALLER_KEYS]
    if unknown:
        raise ValueError(f"callers: unknown key {unknown[0]!r} (allowed: "
                         f"{', '.join(CALLER_KEYS)})")
    found: dict[str, frozenset[str]] = {}
    for key in CALLER_KEYS:
        items = value.get(key, [])
        if isinstance(items, str):
            items = [items]
        if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
            raise ValueError(f"callers.{key} must be a list of non-empty strings")
        found[key] = frozenset(items)
    if not any(found.values()):
        raise ValueError("callers names nobody: list subjects, groups or scopes")
    return CallerMatch(found["subjects"], found["groups"], found["scopes"])


_CURRENT: contextvars.ContextVar[Caller | None] = contextvars.ContextVar(
    "toolhost_caller", default=None)


@contextlib.contextmanager
def as_caller(caller: Caller | None) -> Iterator[None]:
    """Make ``caller`` the one whose calls are decided inside this block."""
    token = _CURRENT.set(caller)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_caller() -> Caller | None:
    """The authenticated caller of the request being handled, if any."""
    return _CURRENT.get()
