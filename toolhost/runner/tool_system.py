"""``os.system`` for tools, without libc's ``system()``.

libc's ``system()`` ignores SIGINT and SIGQUIT in the whole calling process while its
command runs: a tool's ``os.system`` took Ctrl-C from the session for as long (R35-4).
``system`` runs ``/bin/sh -c command`` through ``posix_spawn`` instead (SIGINT and SIGQUIT at
their defaults in the child, as ``system()`` sets them) and returns the wait status as
``os.system`` does, with the same ``os.system`` audit event.

It takes ``os.system``'s place twice: while the session owns its signals
(``runner.owned_signals``), for a tool that looks ``os.system`` up when it calls it; and while
the config loads (``runner.kept_signals``), for a tools module that takes it at import
(``from os import system``), which keeps this one for good.
"""

from __future__ import annotations

import contextlib
import os
import posix
import signal
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["LIBC_SYSTEM", "in_place", "put_in_place", "system"]

LIBC_SYSTEM = os.system


def system(command: str | bytes | os.PathLike[Any]) -> int:
    """``os.system(command)`` without libc's ``system()`` (see the module docstring)."""
    sys.audit("os.system", command)
    text = os.fsdecode(command)
    defaults = (signal.SIGINT, signal.SIGQUIT)  # the command's, as system() sets them
    try:
        pid = os.posix_spawn("/bin/sh", ["sh", "-c", "--", text], os.environ,
                             setsigdef=defaults)
    except OSError:
        return 127 << 8  # as system() when no shell could run
    return os.waitpid(pid, 0)[1]


def put_in_place() -> list[tuple[Any, str, Any]]:
    """``system`` as ``os.system`` and ``posix.system`` (where libc's is); what to put back."""
    installed: list[tuple[Any, str, Any]] = []
    for module in (os, posix):  # (os.system is posix.system)
        if getattr(module, "system", None) is LIBC_SYSTEM:
            installed.append((module, "system", LIBC_SYSTEM))
            setattr(module, "system", system)  # noqa: B010
    return installed


@contextlib.contextmanager
def in_place() -> Iterator[None]:
    """``system`` in ``os.system``'s place within the block (put back after)."""
    installed = put_in_place()
    try:
        yield
    finally:
        for module, name, value in installed:
            setattr(module, name, value)
