"""Who is calling: the identity an authenticated transport vouches for, and rules about it.

``toolhost serve --transport http`` with ``--auth-issuer`` validates each request's OAuth
access token and makes its caller (subject, scopes, groups) current while the request is
handled (:func:`as_caller`). A rule with ``callers:`` applies only to calls whose caller
matches it; a call without a caller (stdio, ``toolhost run``, HTTP without auth) never
matches such a rule, so an allow restricted to callers lets nobody else through. The audit
log records the caller of every decision.

Values are exact, or globs: ``*`` any run of characters, ``?`` one (``contractor-*``,
``*@vendor.example``, ``tools:*``); nothing else is special. When the caller's groups or
scopes could not be read from the token (toolhost.permissions.callers.claims), a deny or ask rule
naming groups (scopes) applies to them and an allow naming them does not: a caller never
escapes a deny for a group they might be in.
"""

from __future__ import annotations

import contextlib
import contextvars
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost import regex
from toolhost.permissions.wildcard import wildcard

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
    # ("groups" | "scopes", why) for each claim the token holds in a shape we cannot read
    unreadable: tuple[tuple[str, str], ...] = ()
    # the token's ``exp`` (seconds since the epoch): a stream opened with it ends then. Not
    # who the caller is: a refreshed token is the same caller
    expires: float = field(default=float("inf"), compare=False)

    def unreadable_kinds(self) -> frozenset[str]:
        return frozenset(kind for kind, _ in self.unreadable)

    def to_audit(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"sub": self.subject, "iss": self.issuer,
                                 "scopes": sorted(self.scopes), "groups": sorted(self.groups)}
        if self.unreadable:
            entry["unreadable"] = dict(self.unreadable)
        return entry


_CHUNK = 8_000  # characters of one RE2 pattern (toolhost.regex takes up to 10,000)


def _compile(values: Iterable[str]) -> tuple[frozenset[str], tuple[regex.Pattern, ...]]:
    """Exact values, and RE2 patterns for the globs among them (none without any): a glob is
    matched in time linear in the claim's length (Python's ``re`` backtracked: ``*a*a*a*b``
    against a 400-character subject ran for minutes)."""
    exact = frozenset(v for v in values if "*" not in v and "?" not in v)
    patterns: list[regex.Pattern] = []
    chunk: list[str] = []
    for glob in sorted(set(values) - exact):
        part = f"(?:{wildcard(glob)})"
        if chunk and sum(map(len, chunk)) + len(chunk) + len(part) > _CHUNK:
            patterns.append(regex.compile("(?s)" + "|".join(chunk)))
            chunk = []
        chunk.append(part)
    if chunk:
        patterns.append(regex.compile("(?s)" + "|".join(chunk)))
    return exact, tuple(patterns)


@dataclass(frozen=True)
class _Values:
    """One kind of a rule's callers values: the exact ones, and RE2 patterns for the globs."""

    exact: frozenset[str]
    globs: tuple[regex.Pattern, ...]

    def any_of(self, names: Iterable[str]) -> bool:
        globs = self.globs
        return any(n in self.exact or any(g.fullmatch(n) for g in globs) for n in names)


@dataclass(frozen=True)
class CallerMatch:
    """A rule's ``callers:``: any listed subject, group or scope (exact or a glob) admits
    the caller."""

    subjects: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    scopes: frozenset[str] = frozenset()
    _compiled: dict[str, _Values] = field(default_factory=dict, init=False, repr=False,
                                          compare=False)

    def __post_init__(self) -> None:
        for kind in CALLER_KEYS:
            self._compiled[kind] = _Values(*_compile(getattr(self, kind)))

    def admits(self, caller: Caller | None, *, strict: bool = True) -> bool:
        """Whether ``caller`` is named. ``strict`` (allow rules): only what the token proves
        counts. Not strict (deny and ask rules): a groups or scopes claim that could not be
        read counts as naming every group or scope the rule lists."""
        if caller is None:
            return False
        if self._compiled["subjects"].any_of((caller.subject,)):
            return True
        unreadable = caller.unreadable_kinds()
        for kind, names in (("groups", caller.groups), ("scopes", caller.scopes)):
            if not getattr(self, kind):
                continue
            if kind in unreadable and not strict:
                return True
            if self._compiled[kind].any_of(names):
                return True
        return False

    def admits_current(self, *, strict: bool = True) -> bool:
        """Whether the caller of the request being handled is admitted (see :meth:`admits`)."""
        return self.admits(_CURRENT.get(), strict=strict)

    def covers(self, other: CallerMatch) -> bool:
        """Whether every caller ``other`` admits, this admits too, kind by kind (a value of
        ``other`` listed here, or matched by a glob here; a glob of ``other`` only by the same
        glob): for ``validate``'s shadowed rules."""
        for kind in CALLER_KEYS:
            mine = getattr(self, kind)
            for value in getattr(other, kind):
                if value in mine:
                    continue
                if "*" in value or "?" in value or not self._compiled[kind].any_of((value,)):
                    return False
        return True

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
        for item in items:  # a claim never holds these, so the value names nobody
            if item != item.strip():
                raise ValueError(f"callers.{key}: {item!r} has blanks around it, which no "
                                 f"token's claim holds, so it names nobody (write "
                                 f"{item.strip()!r})")
            odd = next((c for c in item if unicodedata.category(c) in _ODD), None)
            if odd is not None:
                raise ValueError(f"callers.{key}: {item!r} holds the control or format "
                                 f"character {odd!r}, which no token's claim holds, so it "
                                 "names nobody")
        found[key] = frozenset(items)
    if not any(found.values()):
        raise ValueError("callers names nobody: list subjects, groups or scopes")
    return CallerMatch(found["subjects"], found["groups"], found["scopes"])


_ODD = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})  # control, format, unassigned
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
