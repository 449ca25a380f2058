"""What an in-process python tool cannot do to the host it shares a process with.

- **End it.** ``os._exit()`` called by a tool's code (a sync tool's pool thread, an async
  tool's call and the tasks it starts) raises ``HostExitRefused`` instead, a ``BaseException``
  that becomes that call's error result (``python_calls``); every other call goes on. The
  host's own ``os._exit`` elsewhere, and a child process the tool forked, exit as ever.
  Likewise ``sys.exit()`` or ``KeyboardInterrupt`` in a task an async tool started (asyncio
  lets those two out of the event loop): that task fails with a ``ToolRaised``.
- **Leave its process state changed.** The working directory, ``os.environ`` and
  ``sys.stdin``/``sys.stdout``/``sys.stderr`` are read when the first of a run of
  overlapping calls starts and put back, with a warning naming what changed, when the last
  of them ends (``HostState``). A ``contextlib.redirect_stdout`` in two concurrent calls used
  to leave ``sys.stdout`` a dead ``StringIO`` for good; a tool's ``os.chdir`` moved every
  later relative path of the host. Within a call a tool may change them (and a concurrent
  call sees it: they are process-wide); ``isolation: process`` keeps them in the worker.

Cost: the working directory is read again only when ``os.chdir``/``os.fchdir`` ran (they
count their calls); the environment is one dict copy and one compare per run of calls.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NoReturn

__all__ = ["HOST_STATE", "IN_TOOL", "HostExitRefused", "HostState", "contain_tasks",
           "guard_exit", "mark_tool_thread"]

log = logging.getLogger("toolhost.call")

# set while an async tool's code runs on the event loop (its tasks inherit it)
IN_TOOL: ContextVar[bool] = ContextVar("toolhost_in_tool", default=False)
_TOOL_THREAD = threading.local()
_ENV: dict[Any, Any] = os.environ._data  # type: ignore[attr-defined]  # what os.environ holds


class HostExitRefused(BaseException):
    """``os._exit`` called by an in-process tool: its call fails instead of the host (not a
    ``SystemExit``: asyncio lets that one out of a task, and out of the event loop)."""


def mark_tool_thread() -> None:
    """Called once by each pool thread that runs sync tools: its ``os._exit`` is refused."""
    _TOOL_THREAD.tool = True


def _in_tool() -> bool:
    return IN_TOOL.get() or getattr(_TOOL_THREAD, "tool", False)


def guard_exit() -> None:
    """Replace ``os._exit`` (and count ``os.chdir``/``os.fchdir``), once per process."""
    original: Callable[[int], NoReturn] = os._exit
    if getattr(original, "_toolhost_guarded", False):
        return
    host = os.getpid()

    def _exit(status: int) -> NoReturn:
        if os.getpid() == host and _in_tool():
            raise HostExitRefused(
                f"os._exit({status!r}) would have ended toolhost itself, with every other "
                "call; an in-process tool cannot end the host (give it `isolation: "
                "process` if it must exit)")
        original(status)

    _exit._toolhost_guarded = True  # type: ignore[attr-defined]
    os._exit = _exit
    for name in ("chdir", "fchdir"):
        if name in os.__dict__:
            os.__dict__[name] = _counted(os.__dict__[name])


_chdirs = [0]  # os.chdir/os.fchdir calls so far (a list: no global statement in _counted)


def _counted(change: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        _chdirs[0] += 1
        return change(*args, **kwargs)
    counted.__doc__, counted.__name__ = change.__doc__, change.__name__
    return counted


def contain_tasks() -> None:
    """On the running asyncio loop (once): a task an async tool's code creates turns its own
    ``SystemExit``/``KeyboardInterrupt`` into a ``ToolRaised``. asyncio re-raises those two
    out of any task and out of the event loop: ``sys.exit()`` in a task the tool started
    ended the host, silently, with every call unanswered."""
    import asyncio

    loop = asyncio.get_running_loop()
    previous = loop.get_task_factory()
    if getattr(previous, "_toolhost_contained", False):
        return

    def factory(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> Any:
        if IN_TOOL.get() and asyncio.iscoroutine(coro):
            coro = _contained(coro)
        if previous is None:
            return asyncio.Task(coro, loop=loop, **kwargs)
        return previous(loop, coro, **kwargs)

    factory._toolhost_contained = True  # type: ignore[attr-defined]
    loop.set_task_factory(factory)


async def _contained(coro: Any) -> Any:
    try:
        return await coro
    except (SystemExit, KeyboardInterrupt) as exc:
        from toolhost.backends.base import ToolRaised

        raise ToolRaised(exc) from exc


class HostState:
    """Puts the host's cwd, environment and standard streams back after in-process calls
    (``enter``/``leave`` on the event loop around each call; see the module docstring)."""

    def __init__(self) -> None:
        self._busy = 0
        self._chdirs = -1  # _chdirs[0] when the cwd was last read
        self._cwd = ""
        self._env: dict[Any, Any] = {}
        self._streams: tuple[Any, Any, Any] = (None, None, None)

    def enter(self) -> None:
        self._busy += 1
        if self._busy > 1:
            return
        if self._chdirs != _chdirs[0]:  # the host (or an embedder) moved: that is its own
            self._chdirs = _chdirs[0]
            try:
                self._cwd = os.getcwd()
            except OSError:  # the directory was removed: nothing to go back to
                self._cwd = ""
        self._env = dict(_ENV)
        self._streams = (sys.stdin, sys.stdout, sys.stderr)

    def leave(self, tool: str) -> None:
        self._busy -= 1
        if self._busy > 0:
            return
        changed: list[str] = []
        if self._chdirs != _chdirs[0] and self._cwd:
            self._chdirs = _chdirs[0]
            try:
                now = os.getcwd()
            except OSError:
                now = "(a removed directory)"
            if now != self._cwd:
                try:
                    os.chdir(self._cwd)
                    changed.append(f"working directory (to {now!r}; back in {self._cwd!r})")
                except OSError as exc:
                    changed.append(f"working directory (to {now!r}; {self._cwd!r} could "
                                   f"not be entered again: {exc.strerror})")
                self._chdirs = _chdirs[0]
        if self._env != _ENV:
            changed.append(f"environment ({_restore_env(self._env)})")
        streams = (sys.stdin, sys.stdout, sys.stderr)
        names = [n for n, a, b in zip(("stdin", "stdout", "stderr"), streams, self._streams,
                                      strict=True) if a is not b]
        if names:
            sys.stdin, sys.stdout, sys.stderr = self._streams
            changed.append("sys." + "/".join(names))
        if changed:
            log.warning("in-process tool %s (or a call running with it) changed the host's "
                        "%s; put back (isolation: process keeps such changes in a worker)",
                        tool, ", ".join(changed))


def _restore_env(saved: dict[Any, Any]) -> str:
    """Put ``os.environ`` back to ``saved`` (through ``os.environ``, so the C environment
    follows); the names that changed (never their values: they may be secrets)."""
    env = os.environ
    decode: Callable[[Any], str] = env.decodekey
    names = []
    for key in [k for k in _ENV if k not in saved]:
        names.append(decode(key))
        del env[decode(key)]
    for key, value in saved.items():
        if _ENV.get(key) != value:
            names.append(decode(key))
            env[decode(key)] = env.decodevalue(value)
    return ", ".join(sorted(names)[:10]) + (", ..." if len(names) > 10 else "")


HOST_STATE = HostState()
