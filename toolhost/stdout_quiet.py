"""Code toolhost runs for a command goes to stderr, never to stdout: a plugin at import and
in ``register()``, a backend kind's ``bind()`` (a tools module imported), a tool called by
``toolhost call``.

stdout is what `tools --json`, `plugins --json`, `call --json` and `mcp-config > .mcp.json`
print: a ``print``, an ``os.write(1, ...)`` or a child process started there must not
corrupt it (under `serve` over stdio, stdout was claimed before: ``toolhost.stdout_guard``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

__all__ = ["prints_to_stderr"]


@contextlib.contextmanager
def prints_to_stderr() -> Iterator[None]:
    """``sys.stdout`` is ``sys.stderr`` within the block (a person still sees the output),
    and so is fd 1 (``os.write(1, ...)``, a child process started there).

    Both are the process's, for the block's duration (a plugin is imported once, at load):
    ``sys.stdout`` is one object for every thread, so an embedding program's other threads
    printing meanwhile were already moved to stderr; fd 1 adds what bypasses Python.

    Only on the main thread, where every load before a session starts runs: a reload
    (``toolhost run --watch``) builds on a thread of its own while the session prints the
    model's answers to stdout, which must not be moved to stderr for that while. (Under
    ``serve`` over stdio, ``toolhost.stdout_guard`` keeps the protocol off fd 1 anyway.)"""
    import sys
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    err = sys.stderr
    if err is None:  # no stderr at all: the output goes nowhere, never to stdout
        import io

        err = io.StringIO()
    _flush(sys.stdout)  # what was printed before goes to stdout first
    with contextlib.redirect_stdout(err), _fd1_to_stderr():
        yield


@contextlib.contextmanager
def _fd1_to_stderr() -> Iterator[None]:
    """fd 1 is a duplicate of fd 2 within the block (nothing changes when either is
    closed)."""
    import os
    import sys

    saved = -1
    try:
        _flush(sys.__stdout__)
        saved = os.dup(1)
        os.dup2(2, 1)
    except (OSError, ValueError):
        if saved >= 0:
            os.close(saved)
        saved = -1
    try:
        yield
    finally:
        if saved >= 0:
            _flush(sys.__stdout__, sys.stderr)  # a plugin's write to sys.__stdout__ too
            os.dup2(saved, 1)
            os.close(saved)


def _flush(*streams: object) -> None:
    for stream in streams:
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()  # type: ignore[attr-defined]
