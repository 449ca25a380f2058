"""What a plugin's import or ``register()`` changes of the process toolhost relies on is put
back, with a warning naming the plugin.

A plugin's code runs in toolhost's process: a ``sys.setrecursionlimit(60)`` at import made
every later load an "internal error: RecursionError"; an ``os.chdir`` moved where
``toolhost run`` starts the CLI and where tools run; an ``os.environ.clear()`` took ``PATH``
from every command tool; ``sys.stderr = None`` silenced every problem. None of this is a
plugin's to decide for the host, so each is restored when the plugin has loaded (whether it
loaded or failed). Variables a plugin *adds* to the environment are kept: libraries set
their own defaults at import (``os.environ.setdefault(...)``), which hurt nothing.

The same holds for what would end or stall the host later: a timer (``signal.alarm(1)``
killed ``validate`` with SIGALRM a second on), a lowered resource limit (``RLIMIT_NOFILE``
of 5 made the load an internal error), a replaced built-in (``builtins.print``: every
command printed nothing), a forked child coming back from the import (a second toolhost ran
the whole command again), and a non-daemon thread (Python waits for it at exit: ``validate``
never ended). Such a thread is left running, and not waited for: ``leave_plugin_threads``
(``toolhost.backends.import_threads``, which a python tool's module import uses too).
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import Any

from toolhost.backends.import_threads import THREAD_GRACE, note_threads
from toolhost.backends.import_threads import leave_threads as leave_plugin_threads

__all__ = ["THREAD_GRACE", "leave_plugin_threads", "process_state_kept"]

log = logging.getLogger("toolhost.plugins")

_REAL_EXIT = os._exit  # (exits_refused replaces os._exit while a plugin loads)
_TIMERS = tuple(getattr(signal, name) for name in ("ITIMER_REAL", "ITIMER_VIRTUAL",
                                                   "ITIMER_PROF") if hasattr(signal, name))


@contextlib.contextmanager
def process_state_kept(plugin: str) -> Iterator[None]:
    """Restore, after the block, the working directory, the recursion limit, ``sys.stdin``
    and ``sys.stderr``, the umask, and every environment variable the block removed or
    changed; warn once naming ``plugin`` and what it changed."""
    try:
        cwd: str | None = os.getcwd()
    except OSError:  # a directory removed under us: nothing to go back to
        cwd = None
    limit = sys.getrecursionlimit()
    streams = (sys.stdin, sys.stderr)
    environ = dict(os.environ)
    mask = _umask()
    fds = _held((0, 2))
    pid, threads, limits = os.getpid(), set(threading.enumerate()), _limits()
    names = dict(vars(builtins))
    timers = [signal.getitimer(which) for which in _TIMERS]
    try:
        yield
    finally:
        if os.getpid() != pid:  # a child the plugin forked, back from the import: it is not
            _REAL_EXIT(0)  # toolhost, and must not run the command a second time
        changed = _fds_back(fds) + _restore(cwd, limit, streams, environ, mask)
        changed += _more_back(plugin, threads, limits, names, timers)
        if changed:
            log.warning("plugin '%s' changed %s while loading: put back (a plugin must not "
                        "change the process it is loaded into)", plugin, ", ".join(changed))


def _held(fds: tuple[int, ...]) -> dict[int, int]:
    """A copy of each of ``fds`` that is open (non-inheritable), to put back if closed."""
    held = {}
    for fd in fds:
        try:
            held[fd] = os.dup(fd)
        except OSError:  # not open to begin with: nothing to put back
            continue
    return held


def _fds_back(held: dict[int, int]) -> list[str]:
    """Put back the descriptors the block closed or replaced (``os.close(2)`` lost every
    later problem line); close the copies."""
    changed = []
    for fd, copy in held.items():
        try:
            same = os.path.sameopenfile(fd, copy)
        except OSError:  # closed
            same = False
        if not same:
            os.dup2(copy, fd, inheritable=True)
            changed.append(f"file descriptor {fd}")
        os.close(copy)
    return changed


def _restore(cwd: str | None, limit: int, streams: tuple[object, object],
             environ: dict[str, str], mask: int) -> list[str]:
    changed = []
    if sys.stdin is not streams[0] or sys.stderr is not streams[1]:  # first: the warning
        sys.stdin, sys.stderr = streams
        changed.append("sys.stdin or sys.stderr")
    try:
        moved = cwd is not None and os.getcwd() != cwd
    except OSError:
        moved = True
    if moved and cwd is not None:
        try:
            os.chdir(cwd)
            changed.append("the working directory")
        except OSError:
            changed.append("the working directory (which could not be restored)")
    if sys.getrecursionlimit() != limit:
        sys.setrecursionlimit(limit)
        changed.append("the recursion limit")
    if _umask() != mask:
        os.umask(mask)
        changed.append("the umask")
    gone = [k for k, v in environ.items() if os.environ.get(k) != v]
    if gone:
        os.environ.update({k: environ[k] for k in gone})
        changed.append("the environment (" + ", ".join(sorted(gone)[:5])
                       + (", ..." if len(gone) > 5 else "") + ")")
    return changed


def _umask() -> int:
    """The process's umask, read without setting it where Linux tells it (setting it to read
    it would change it for every other thread meanwhile)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _limits() -> dict[int, tuple[int, int]]:
    """The process's resource limits (none where the platform has no ``resource``)."""
    try:
        import resource
    except ImportError:
        return {}
    out = {}
    for name in dir(resource):
        if name.startswith("RLIMIT_"):
            which = getattr(resource, name)
            with contextlib.suppress(OSError, ValueError):
                out[which] = resource.getrlimit(which)
    return out


def _more_back(plugin: str, threads: set[threading.Thread], limits: dict[int, tuple[int, int]],
               names: dict[str, Any], timers: list[tuple[float, float]]) -> list[str]:
    """Put back timers, resource limits and built-ins; note new non-daemon threads."""
    changed = []
    for which, before in zip(_TIMERS, timers, strict=True):
        if signal.getitimer(which) != before:
            signal.setitimer(which, *before)
            changed.append("a timer (signal.alarm or setitimer)")
    if limits:
        import resource

        for which, before in limits.items():
            with contextlib.suppress(OSError, ValueError):
                if resource.getrlimit(which) != before:
                    try:
                        resource.setrlimit(which, before)
                        changed.append("a resource limit")
                    except (OSError, ValueError):  # a lowered hard limit cannot be raised
                        changed.append("a resource limit (which could not be restored)")
    replaced = [k for k, v in names.items() if vars(builtins).get(k, names) is not v]
    if replaced:
        vars(builtins).update({k: names[k] for k in replaced})
        changed.append("built-ins (" + ", ".join(sorted(replaced)[:5]) + ")")
    note_threads(f"plugin '{plugin}'", threads)
    return list(dict.fromkeys(changed))
