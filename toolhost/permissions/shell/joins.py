"""Backslash-newline, removed the way bash removes it before it reads tokens (for ``shell``).

bash drops every backslash-newline from its input (``$\\⏎(`` is ``$(``, ``r\\⏎m`` is ``rm``,
a line of an unquoted here-document ending in ``\\`` joins the next) except where it reads text
as it is: inside single quotes, ``$'...'``, comments and the bodies of quoted here-documents.
Whether one is in such a place depends on the text before it, as bash has read it, so the
parser judges them in order; ``join_all`` is the usual shortcut (remove them all, then check).
"""

from __future__ import annotations

from collections.abc import Callable

from toolhost.permissions.shell.quoting import ShellSyntaxError

__all__ = ["join_all", "join_one_by_one"]

_MAX_JOINS = 64  # backslash-newlines judged one by one; more are refused (fail closed)


def join_all(command: str) -> tuple[str, list[int]]:
    """``command`` without any backslash-newline that is not itself escaped, and where each
    was (the index in the result its removal left a gap before)."""
    out: list[str] = []
    gaps: list[int] = []
    i = size = 0
    while (k := command.find("\\\n", i)) >= 0:
        run = k
        while run > 0 and command[run - 1] == "\\":
            run -= 1
        out.append(command[i:k])
        size += k - i
        if (k - run) % 2:  # escaped by the backslash before it: a newline
            out.append("\\\n")
            size += 2
        else:
            gaps.append(size)
        i = k + 2
    out.append(command[i:])
    return "".join(out), gaps


def join_one_by_one(command: str,
                    raw_ranges: Callable[[str], list[tuple[int, int]]]) -> str:
    """``command`` with each backslash-newline removed where bash removes it before it reads
    tokens: everywhere (``$\\⏎(`` is ``$(``, a here-document line ending in ``\\`` is joined
    with the next) except inside single quotes, ``$'...'``, comments and the bodies of quoted
    here-documents. Each one is judged on the text as bash has read it up to there:
    ``raw_ranges(text)`` gives where the parser reads ``text`` as it is. More than 64 are
    refused (ShellSyntaxError: fail closed)."""
    if "\\\n" not in command:
        return command
    s, pos, rounds = command, 0, 0
    while (k := s.find("\\\n", pos)) >= 0:
        run = k
        while run > 0 and s[run - 1] == "\\":
            run -= 1
        if (k - run) % 2:  # this backslash is escaped by the one before it
            pos = k + 2
            continue
        rounds += 1
        if rounds > _MAX_JOINS:
            raise ShellSyntaxError(f"more than {_MAX_JOINS} line continuations")
        if any(a <= k < b for a, b in raw_ranges(s)):
            pos = k + 2
        else:
            s, pos = s[:k] + s[k + 2:], k
    return s
