"""Code toolhost runs for a command goes to stderr, never to stdout: a plugin at import and
in ``register()``, a backend kind's ``bind()`` (a tools module imported), a tool called by
``toolhost call``.

stdout is what `tools --json`, `plugins --json`, `call --json` and `mcp-config > .mcp.json`
print: a ``print``, an ``os.write(1, ...)`` or a child process started there must not
corrupt it (under `serve` over stdio, stdout was claimed before: ``toolhost.stdout_guard``).

``HeldStdout`` covers what comes after the load: a thread a plugin or a tools module started
at import, an ``atexit`` hook, a child process they left running. For the whole command fd 1
is stderr and ``sys.stdout`` writes to the real stdout only on the command's own thread.
"""

from __future__ import annotations

import contextlib
import sys
from _thread import get_ident as _get_ident  # per write: no attribute look-up
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["HeldStdout", "prints_to_stderr"]


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


class HeldStdout:
    """The real stdout held for the command; fd 1 is a duplicate of fd 2 until ``release``.

    A plugin or tools module may start a thread at import that prints (or ``os.write(1,
    ...)`` or starts a child process) at any later time, an ``atexit`` hook prints at the
    exit: none of it may land in `tools --json`, `call --json` or the `.mcp.json` of
    `mcp-config > .mcp.json`. ``wrap`` gives the stream the command prints to: what the thread
    that made this object writes goes to the real stdout, any other thread's to stderr.

    ``sys.stdout`` not on fd 1 (a test's ``capsys``, an embedding program's stream): fd 1 is
    left alone, only other threads' writes are moved."""

    def __init__(self) -> None:
        import os
        import sys
        import threading

        self.owner = threading.get_ident()
        self._fd = -1
        self.stream = sys.stdout
        try:
            on_fd1 = sys.stdout.fileno() == 1
        except (AttributeError, OSError, ValueError):  # io.StringIO, a closed stream
            on_fd1 = False
        if not on_fd1:
            return
        _flush(sys.stdout, sys.__stdout__)
        try:
            self._fd = os.dup(1)  # non-inheritable: no child process gets the real stdout
            os.dup2(2, 1)
        except OSError:
            if self._fd >= 0:
                os.close(self._fd)
            self._fd = -1
            return
        old = sys.stdout
        self.stream = open(  # noqa: SIM115 - closed by release()
            self._fd, "w", encoding=getattr(old, "encoding", None) or "utf-8",
            errors=getattr(old, "errors", None) or "strict", closefd=False,
            buffering=1 if getattr(old, "line_buffering", False) else -1)

    def wrap(self, stream: Any) -> OwnThreadStream:
        """``stream`` (writing to ``self.stream``) for the owning thread, stderr for others."""
        return OwnThreadStream(stream, self.owner)

    def release(self, *, for_good: bool) -> OSError | None:
        """Flush the held stdout; put it back on fd 1 unless ``for_good`` (the process ends
        after the command: its threads and ``atexit`` hooks still print to stderr). Returns
        why the command's output could not be written (a full disk, a reader gone): the
        command failed, it must not exit 0."""
        import os

        if self._fd < 0:
            return None
        failed = None
        try:
            self.stream.flush()
        except OSError as exc:
            failed = exc
        except ValueError:  # closed by the command itself
            pass
        with contextlib.suppress(OSError, ValueError):
            if not for_good:
                os.dup2(self._fd, 1)
        if failed is not None:  # what could not be written is dropped, not retried at exit
            with contextlib.suppress(OSError, ValueError):
                null = os.open(os.devnull, os.O_WRONLY)
                try:
                    os.dup2(null, self._fd)
                    self.stream.flush()
                finally:
                    os.close(null)
        try:
            if not for_good:
                raise OSError
            # the process ends: a stream kept from sys.stdout during the command and used by
            # an atexit hook writes to stderr, never into a file that took a freed number
            os.dup2(2, self._fd)
        except OSError:  # (or stderr closed)
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = -1
        return failed


class OwnThreadStream:
    """Writes of the owning thread go to ``inner``, any other thread's to ``sys.stderr``."""

    def __init__(self, inner: Any, owner: int) -> None:
        self.inner = inner
        self.owner = owner

    def _target(self) -> Any:
        return self.inner if _get_ident() == self.owner else sys.stderr

    def write(self, text: str) -> int:
        return int(self._target().write(text))

    def writelines(self, lines: Iterable[str]) -> None:
        self._target().writelines(lines)

    def flush(self) -> None:
        self._target().flush()

    def finish(self) -> None:
        """The inner stream's ``finish`` (``ScrubbingStream``), else its ``flush``."""
        finish = getattr(self.inner, "finish", None)
        finish() if callable(finish) else self.inner.flush()

    def __getattr__(self, name: str) -> Any:  # fileno, isatty, encoding, buffer, ...
        return getattr(self.inner, name)
