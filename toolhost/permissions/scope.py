"""Whether a search (Grep, Glob, LS) of a directory may reach a path a ``Read(...)`` rule names.

A Grep of ``/proj`` reads every file below it that ripgrep does not skip, and its ``glob``
option can bring back hidden and ignored files; a Glob or LS lists their names. Which files a
search reads cannot be proven from its input, so a deny or ask ``Read(...)`` rule naming a path
that may lie below (or at) a searched directory holds the call for a person to approve (see
``CompiledPolicy.decide``): such a call is never allowed by a rule or a default.
"""

from __future__ import annotations

from collections.abc import Sequence

from toolhost.permissions.paths import PathPattern

__all__ = ["SEARCH_TOOLS", "fixed_prefix", "may_reach"]

SEARCH_TOOLS = frozenset({"Grep", "Glob", "LS"})
_META = frozenset(".^$*+?{}[]|()")


def fixed_prefix(pattern: PathPattern) -> tuple[str, bool]:
    """The literal start every path ``pattern`` matches begins with, and whether the whole
    pattern is literal (one path)."""
    source = pattern.regex.pattern
    out: list[str] = []
    i = 0
    while i < len(source):
        c = source[i]
        if c == "\\" and i + 1 < len(source) and not source[i + 1].isalnum():
            out.append(source[i + 1])
            i += 2
            continue
        if c in _META or c == "\\":
            return "".join(out), False
        out.append(c)
        i += 1
    return "".join(out), True


def _under(path: str, directory: str) -> bool:
    return path == directory or directory == "/" or path.startswith(directory.rstrip("/") + "/")


def may_reach(pattern: PathPattern, roots: Sequence[str | None]) -> bool:
    """Whether a search of any of ``roots`` (normalised; None: unknown) may touch a path
    ``pattern`` matches: every such path starts with the pattern's literal start, so it may lie
    below a root when that start does, or when the root itself starts with it (and the
    pattern goes on with wildcards)."""
    start, literal = fixed_prefix(pattern)
    start = start.lower()  # a deny meets a path in any case (``PathPattern.covers``)
    for root in roots:
        if root is not None:
            root = root.lower()
        if root is None or _under(start, root) or (not literal and root.startswith(start)):
            return True
    return False
