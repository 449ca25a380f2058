"""How many secrets one config may hold, and how long they may be, all together.

Every secret is hidden in everything toolhost writes, in some forty spellings (base64, hex,
URL-encoded, split across lines, ...), and the redactor sets all of them up at every start:
measured on a 2-core machine, 1,000 secrets of 20 characters took 4-8 s and 320 MB; 5,000 (or
500 of 131 characters) ended in an internal error (RE2's "pattern too large"); 100,000 held
`validate` past 5 minutes and 13 GB; one random 262,144-character secret took 10 s; 256 of 256
characters (both limits) take 4-12 s. A config past either limit is refused
before any of that, with one line at the value that passed it (a limit passed is the only
problem reported: nothing else of the load is checked). An honest config has a few dozen.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from toolhost.config.limits import LIMITS
from toolhost.config.tree import Doc, Path, format_path, mark_for
from toolhost.errors import Problem

__all__ = ["secret_budget_problem", "too_long_problems"]


def secret_budget_problem(doc: Doc, secrets: set[str]) -> Problem | None:
    """A located problem when ``secrets`` (the config's own, found in ``doc``) are more than
    ``LIMITS.secrets`` values or ``LIMITS.secret_chars`` characters all together; else None."""
    count, chars = LIMITS.secrets, LIMITS.secret_chars
    if len(secrets) <= count and sum(map(len, secrets)) <= chars:
        return None  # (the common case: one pass over a few dozen values)
    seen: set[str] = set()
    total = 0
    for path, value in _in_order(doc):
        if value not in secrets or value in seen:
            continue
        seen.add(value)
        total += len(value)
        if len(seen) > count or total > chars:
            mark = mark_for(doc.marks, path, doc.file)
            return Problem(_message(len(seen) > count, len(value)), mark.file, mark.line,
                           mark.column, format_path(path), _hint(len(seen) > count))
    many = len(secrets) > count  # (a secret written nowhere whole, say in a URL's userinfo)
    return Problem(_message(many, 0), doc.file, hint=_hint(many))


def _message(many: bool, length: int) -> str:
    if many:
        return (f"more than {LIMITS.secrets:,} secret values in one config (each is hidden in "
                "every message in some forty spellings, set up at every start)")
    return (f"the secret values of this config add up to more than {LIMITS.secret_chars:,} "
            "characters" + (f" (this one has {length:,})" if length else "") + ": each is "
            "hidden in every message in some forty spellings, set up at every start")


def _hint(many: bool) -> str:
    name = "TOOLHOST_MAX_SECRETS" if many else "TOOLHOST_MAX_SECRET_CHARS"
    return f"raise {name} if this is meant"


def _in_order(doc: Doc) -> Iterator[tuple[Path, str]]:
    """Every string of ``doc`` as written, and each value a ``${VAR}`` put into one (a
    secret may be either), in the order of the data; iterative (nesting is bounded, but a
    walk need not rely on it)."""
    stack: list[tuple[Path, Any]] = [((), doc.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            yield path, value
            substituted = doc.substituted.get(path)
            for start, end in substituted[1] if substituted else ():
                yield path, value[start:end]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            yield path, str(value)  # `PIN: 98765432` under secrets: is the text a program sees
        elif isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in reversed(list(enumerate(value))))


def too_long_problems(merged: Doc, secrets: list[str], limit: int) -> list[Problem]:
    """A located problem per secret longer than ``limit`` (``MAX_SECRET``): each of its
    forms is looked for in everything toolhost writes, at a set-up cost linear in its length
    (200,000 characters cost seconds, on every load), and no credential is that long. Only these
    problems are shown: the value is not among the secrets hidden, so no other message
    (which might quote it) may be."""
    found: list[Problem] = []
    for secret in secrets:
        path = _path_holding(merged.data, secret, ())
        mark = mark_for(merged.marks, path or (), merged.file)
        found.append(Problem(
            f"a secret of {len(secret):,} characters: a secret may have at most "
            f"{limit:,}", mark.file, mark.line, mark.column,
            format_path(path) if path else "", "a secret is a credential, a token, a "
            "password or a key: pass longer data another way, as a file the tool reads"))
    return found


def _path_holding(data: Any, secret: str, path: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The path of the first string of ``data`` holding ``secret`` (None: none does)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, path)]
    while stack:  # (a loop, not recursion: a config may nest deep)
        node, where = stack.pop()
        if isinstance(node, str):
            if secret in node:
                return where
        elif isinstance(node, dict):
            stack += reversed([(v, (*where, k)) for k, v in node.items()])
        elif isinstance(node, list):
            stack += reversed([(v, (*where, i)) for i, v in enumerate(node)])
    return None
