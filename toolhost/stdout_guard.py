"""stdout belongs to the protocol: take it before any tool can write to it.

Under ``toolhost serve`` over stdio and ``toolhost run --output json`` every line on stdout is a
protocol line a program parses. A python tool's ``print``, a library writing to
``sys.stdout`` or to fd 1 directly, and a child process inheriting fd 1 would corrupt that
stream. ``claim_stdout`` duplicates the real fd 1 for the protocol writer (the duplicate is not
inherited by children), then points fd 1 and ``sys.stdout`` at stderr: everything else written
"to stdout" lands on stderr, where a person sees it and no parser does.

Why stderr and not the tool's result: a print is a side effect, often from a library, and not
tied to the call that made it (threads, background tasks, child processes); the result is what
the function returns. See docs/backends.md.

stdin is the client's requests under ``toolhost serve`` over stdio: ``claim_stdin`` keeps a
private duplicate for the protocol reader and points fd 0 and ``sys.stdin`` at the null
device, so a tool's ``input()``, a library reading ``sys.stdin`` and a child process that
inherits fd 0 (``subprocess.run(["cat"])``) read nothing, instead of taking the client's next
requests (which were then never answered, and whose arguments reached the tool).

``before_signal_death`` registers what must run before the process ends by a signal it
re-raises on itself (``toolhost serve``'s stop): ``atexit`` and ``finally`` never run then,
and a pipe draining fds 1 and 2 (``runner.inert_fds``) would lose what it still holds.

``fill_closed_stdio`` runs first of all: a process started with fd 0, 1 or 2 closed (``<&-``)
gets the null device there, so the next file it opens (the event loop's epoll, a pipe) does
not take that number and get read as requests or turns, or written to as output.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Callable
from typing import IO, TextIO

__all__ = ["before_signal_death", "claim_stdin", "claim_stdout", "claim_stdout_text",
           "fill_closed_stdio", "signal_death_near"]

_BEFORE_DEATH: list[Callable[[], None]] = []


def before_signal_death(hook: Callable[[], None]) -> Callable[[], None]:
    """Run ``hook`` in ``signal_death_near`` (see the module text); returns a function
    that takes it off again."""
    _BEFORE_DEATH.append(hook)

    def forget() -> None:
        with contextlib.suppress(ValueError):
            _BEFORE_DEATH.remove(hook)
    return forget


def signal_death_near() -> None:
    """Called just before the process re-raises a signal that ends it: every hook, newest
    first, each once (a failing one does not keep the others from running)."""
    while _BEFORE_DEATH:
        hook = _BEFORE_DEATH.pop()
        with contextlib.suppress(Exception):
            hook()


def fill_closed_stdio() -> None:
    """The null device on each of fds 0, 1 and 2 that is closed, and a stream on it where
    Python left ``sys.stdin``/``stdout``/``stderr`` None (see the module docstring)."""
    while True:
        fd = os.open(os.devnull, os.O_RDWR)  # the lowest free number
        if fd > 2:
            os.close(fd)
            break
    if sys.stdin is None:
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
    if sys.stdout is None:
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", closefd=False)  # noqa: SIM115


def claim_stdout() -> IO[bytes]:
    """Take the process's stdout for the protocol and point fd 1 and ``sys.stdout`` at stderr.

    Returns an unbuffered binary file on the original stdout.
    """
    sys.stdout.flush()
    protocol_fd = os.dup(1)  # non-inheritable: no child process gets the protocol stream
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return os.fdopen(protocol_fd, "wb", buffering=0)


def claim_stdout_text() -> TextIO:
    """``claim_stdout`` as a UTF-8 text stream that flushes every line."""
    return io.TextIOWrapper(claim_stdout(), encoding="utf-8", errors="replace",
                            line_buffering=True, write_through=True)


def claim_stdin() -> IO[bytes]:
    """Take the process's stdin for the protocol and point fd 0 and ``sys.stdin`` at the null
    device. Returns a buffered binary file on the original stdin (not inherited by children).
    """
    protocol_fd = os.dup(0)  # non-inheritable: no child process reads the client's requests
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the process's, for good
    return os.fdopen(protocol_fd, "rb")
