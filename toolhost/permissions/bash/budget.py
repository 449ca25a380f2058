"""The work one Bash decision may do, shared by every check of the line.

A line is read by many checks (the rules' forms, the files a command reads, the scripts and
Makefiles it runs...), and several of them look at the whole line for each of its commands:
the work of each check is bounded, but a line of thousands of commands, or of hundreds of
nested wrappers, multiplied them into minutes. One budget per decision counts the words they
copy and scan; past it the check raises :class:`Spent`, and the policy stops judging the line:
it is not provable (every deny or ask rule may meet it, no allow rule proves it), with
:data:`SPENT_REASON` as its one-line reason.

Outside a decision (a caller using one check alone) nothing is counted.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from toolhost.permissions.shell.parse import ParsedCommand

T = TypeVar("T")

__all__ = ["DECISION_WORDS", "SPENT_REASON", "Spent", "apart", "charge", "line_fact", "memo",
           "one_decision", "scan_line", "spent"]

# Words one decision may copy and scan in all (about a second of work). A long line people
# write costs a few thousand to a few hundred thousand (`sudo apt-get install` of 300
# packages: ~190,000; 200 commands joined by && ~110,000); 250 nested `env A=1` cost
# 125,000 for each check going through its forms.
DECISION_WORDS = 1 << 20
SPENT_REASON = ("it is too long or too nested to check in one decision: split it into shorter "
                "commands")


class Spent(Exception):
    """The decision's budget is spent: the line is not provable."""


class _Left:
    __slots__ = ("memo", "over", "words")

    def __init__(self) -> None:
        self.words = DECISION_WORDS
        self.over = False
        # results the checks of this decision share (a command's forms are asked for by
        # every check and every rule): each is made, and counted, once
        self.memo: dict[object, object] = {}


_LEFT: ContextVar[_Left | None] = ContextVar("bash_decision_budget", default=None)


@contextmanager
def one_decision() -> Iterator[None]:
    """A fresh budget for the checks run inside (a decision made while judging another, a
    Makefile's recipe line, shares the outer one)."""
    if _LEFT.get() is not None:
        yield
        return
    token = _LEFT.set(_Left())
    try:
        yield
    finally:
        _LEFT.reset(token)


@contextmanager
def apart() -> Iterator[None]:
    """Checks run inside count nothing (a result cached across decisions, bounded by its own
    input, must not depend on what one decision had left)."""
    token = _LEFT.set(None)
    try:
        yield
    finally:
        _LEFT.reset(token)


def memo() -> dict[object, object] | None:
    """The decision's shared results (None outside a decision)."""
    left = _LEFT.get()
    return None if left is None else left.memo


def charge(words: int) -> None:
    """Count ``words`` against the decision's budget; raise :class:`Spent` past it."""
    left = _LEFT.get()
    if left is None:
        return
    left.words -= words
    if left.words < 0:
        left.over = True
        raise Spent(SPENT_REASON)


def spent() -> bool:
    """Whether the decision's budget ran out (a check may have caught :class:`Spent`)."""
    left = _LEFT.get()
    return left is not None and left.over


def scan_line(parsed: ParsedCommand) -> None:
    """Count one look at every word of ``parsed`` (a check of one command that looks at
    the whole line: the line's commands times its words, charged as they happen)."""
    if _LEFT.get() is not None:
        charge(len(parsed.words) + sum(map(len, parsed.words))
               + len(parsed.nested_words) + sum(map(len, parsed.nested_words)))


def line_fact(parsed: ParsedCommand, name: str, compute: Callable[[], T]) -> T:
    """What ``compute`` says of the whole line ``parsed``, worked out once per decision (a
    check of each command asking it again gets the same answer) and counted as one look at
    the line."""
    shared = memo()
    if shared is None:
        return compute()
    key = ("line", id(parsed), name)  # (``parsed`` lives as long as the decision's checks)
    if key not in shared:
        scan_line(parsed)
        shared[key] = (parsed, compute())  # (held: its id is not reused meanwhile)
    held = shared[key]
    assert isinstance(held, tuple)
    fact: T = held[1]
    return fact
