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
"""

from __future__ import annotations

import io
import os
import sys
from typing import IO, TextIO

__all__ = ["claim_stdout", "claim_stdout_text"]


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
