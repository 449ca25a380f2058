"""What an in-process python tool cannot do to the host it shares a process with.

- **End it**: ``toolhost.backends.exit_guards`` (``os._exit``, ``os.kill`` of the host,
  ``os.abort``, ``signal.raise_signal``, ``sys.exit`` in a task a tool started).
- **Move its working directory**: ``toolhost.backends.cwd_guard`` (``os.chdir``,
  ``os.fchdir``, ``os.chroot`` from a tool's code are refused: the rules judge every call's
  relative paths there).
- **Leave its process state changed.** ``os.environ`` and
  ``sys.stdin``/``sys.stdout``/``sys.stderr`` are read when the first of a run of
  overlapping calls starts and put back, with a warning naming what changed, when the last
  of them ends (``HostState``). A ``contextlib.redirect_stdout`` in two concurrent calls used
  to leave ``sys.stdout`` a dead ``StringIO`` for good. Within a call a tool may change them
  (and a concurrent call sees it: they are process-wide); ``isolation: process`` keeps them
  in the worker.

  Only what the tools change is put back: ``os.environ``'s writes are watched, and a change
  made outside a tool's code while a call runs (by the host, or the program that embeds
  toolhost's SDK adapter, on another thread or task) is kept, the state to go back to
  follows it. ``os.putenv``/``os.unsetenv`` (which ``os.environ`` does not see) are not
  watched.

Cost: a counter, read per call (the environment is copied only when it changed since the
last copy, and compared only when a tool changed it).
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable
from typing import Any

from toolhost.backends.cwd_guard import guard_moves
from toolhost.backends.exit_guards import (
    IN_TOOL,
    HostExitRefused,
    contain_tasks,
    guard_ends,
    in_tool,
    mark_tool_thread,
)
from toolhost.backends.thread_errors import quiet_tool_threads

__all__ = ["AFTER_CALLS", "HOST_STATE", "IN_TOOL", "HostExitRefused", "HostState",
           "contain_tasks", "guard_exit", "mark_tool_thread"]

log = logging.getLogger("toolhost.call")

# more of the host's state to put back when in-process calls end: each is given the tool's
# name and returns what it put back, named ('' for nothing). ``toolhost.runner.owned_signals``
# puts its session's signals here while it owns them (a tool could change them by ways no
# guard sees: ctypes).
AFTER_CALLS: list[Callable[[str], str]] = []


def guard_exit() -> None:
    """Install the guards, once per process: what would end the host (``exit_guards``),
    what would move its working directory (``cwd_guard``), and the counting of
    ``os.environ``'s writes."""
    if getattr(os._exit, "_toolhost_guarded", False):
        return
    guard_ends(os.getpid())
    quiet_tool_threads()
    guard_moves()
    _watch_environ()


# changes so far: [any, a tool's] (a list: no global statement in the wrappers)
_envs = [0, 0]


def _watch_environ() -> None:
    """Count the writes to ``os.environ`` (its class's two methods every write goes
    through: ``update``, ``pop``, ``clear``, ``setdefault``, ``|=`` use them)."""
    cls = type(os.environ)
    if getattr(cls.__setitem__, "_toolhost_watched", False):
        return
    set_item, del_item = cls.__setitem__, cls.__delitem__

    def __setitem__(self: Any, key: str, value: str) -> None:
        set_item(self, key, value)
        if self is os.environ:
            _env_changed(key, value)

    def __delitem__(self: Any, key: str) -> None:
        del_item(self, key)
        if self is os.environ:
            _env_changed(key, None)

    __setitem__._toolhost_watched = True  # type: ignore[attr-defined]
    cls.__setitem__ = __setitem__  # type: ignore[method-assign]
    cls.__delitem__ = __delitem__  # type: ignore[method-assign]


def _env_changed(key: str, value: str | None) -> None:
    _envs[0] += 1
    if in_tool():
        _envs[1] += 1
    else:
        HOST_STATE.host_set(key, value)


class HostState:
    """Puts the host's environment and standard streams back after in-process calls
    (``enter``/``leave`` on the event loop around each call; see the module docstring)."""

    def __init__(self) -> None:
        self._busy = 0
        self._envs = -1  # _envs[0] when the environment was last copied
        self._env: dict[str, str] = {}
        self._tool_envs = 0  # a tool's changes when the run started
        self._streams: tuple[Any, Any, Any] = (None, None, None)

    def host_set(self, key: str, value: str | None) -> None:
        """The host (not a tool) changed ``os.environ[key]``: keep it when putting back."""
        if self._busy:
            if value is None:
                self._env.pop(key, None)
            else:
                self._env[key] = value

    def enter(self) -> None:
        self._busy += 1
        if self._busy > 1:
            return
        if self._envs != _envs[0]:
            self._envs = _envs[0]
            self._env = os.environ.copy()
        self._tool_envs = _envs[1]
        self._streams = (sys.stdin, sys.stdout, sys.stderr)

    def leave(self, tool: str) -> None:
        self._busy -= 1
        if self._busy > 0:
            return
        changed: list[str] = []
        if self._tool_envs != _envs[1]:
            names = _restore_env(self._env)
            if names:
                changed.append(f"environment ({names})")
            self._envs = _envs[0]
        saved = self._streams
        # the usual call moves no stream: three identity tests, not a comprehension's frame
        if sys.stdin is not saved[0] or sys.stdout is not saved[1] \
                or sys.stderr is not saved[2]:
            streams = (sys.stdin, sys.stdout, sys.stderr)
            moved = [n for n, a, b in zip(("stdin", "stdout", "stderr"), streams, saved,
                                          strict=True) if a is not b]
            sys.stdin, sys.stdout, sys.stderr = saved
            changed.append("sys." + "/".join(moved))
        for put_back in AFTER_CALLS:
            if more := put_back(tool):
                changed.append(more)
        if changed:
            log.warning("in-process tool %s (or a call running with it) changed the host's "
                        "%s; put back (isolation: process keeps such changes in a worker)",
                        tool, ", ".join(changed))


def _restore_env(saved: dict[str, str]) -> str:
    """Put ``os.environ`` back to ``saved``; the names that changed (never their values:
    they may be secrets)."""
    env = os.environ
    names = [key for key in env if key not in saved]
    for key in names:
        del env[key]
    for key, value in saved.items():
        if env.get(key) != value:
            names.append(key)
            env[key] = value
    return ", ".join(sorted(names)[:10]) + (", ..." if len(names) > 10 else "")


HOST_STATE = HostState()
