"""The lines a command runs from a file it reads (a Makefile's recipes, a package's
scripts), judged one by one as Bash commands: the first a deny or ask Bash rule meets, or
whose programs cannot be proven, makes the command not provable."""

from __future__ import annotations

from collections.abc import Callable, Iterable

__all__ = ["Judge", "Unprovable", "first_unproven"]

Judge = Callable[[list[str | None]], bool]  # whether a deny or ask Bash rule meets the texts
Unprovable = Callable[[str, str, Judge], "str | None"]  # why a line cannot be proven there


def first_unproven(labelled: Iterable[tuple[str, str]], where: str, judge: Judge,
                   unprovable: Unprovable) -> str | None:
    """Why the first of (label, line) that is not allowed is not (None: every one is), run
    in the folder ``where``."""
    for label, line in labelled:
        if judge([line]):
            return f"{label} meets a deny or ask rule"
        why = unprovable(line, where, judge)
        if why is not None:
            return f"{label} cannot be proven ({why})"
    return None
