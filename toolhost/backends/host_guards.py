"""What an in-process python tool cannot do to the host it shares a process with.

- **End it.** ``os._exit()``, ``os.abort()``, ``os.kill``/``os.killpg`` of the host (or its
  group) and ``signal.raise_signal`` with a signal that ends or stops it, called by a tool's
  code (a sync tool's pool thread, a thread a tool started, an async tool's call and the
  tasks it starts) raise ``HostExitRefused`` instead, a ``BaseException``
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

  Only what the tools change is put back: ``os.chdir``/``os.fchdir`` and ``os.environ``'s
  writes are watched, and a change made outside a tool's code while a call runs (by the
  host, or the program that embeds toolhost's SDK adapter, on another thread or task) is
  kept, the state to go back to follows it. A thread a tool started counts as the host's.
  ``os.putenv``/``os.unsetenv`` (which ``os.environ`` does not see) are not watched.

Cost: two counters, read per call (the cwd and the environment are copied only when they
changed since the last copy, and compared only when a tool changed them).
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


class HostExitRefused(BaseException):
    """``os._exit`` called by an in-process tool: its call fails instead of the host (not a
    ``SystemExit``: asyncio lets that one out of a task, and out of the event loop)."""


def mark_tool_thread() -> None:
    """Called once by each pool thread that runs sync tools: its ``os._exit`` is refused."""
    _TOOL_THREAD.tool = True


def _in_tool() -> bool:
    return (IN_TOOL.get() or getattr(_TOOL_THREAD, "tool", False)
            or getattr(threading.current_thread(), "_toolhost_tool", False))


def _refused(what: str) -> HostExitRefused:
    return HostExitRefused(
        f"{what} would have ended toolhost itself, with every other call; an in-process "
        "tool cannot end the host (give it `isolation: process` if it must exit)")


def guard_exit() -> None:
    """Replace ``os._exit`` (and count ``os.chdir``/``os.fchdir``), once per process."""
    original: Callable[[int], NoReturn] = os._exit
    if getattr(original, "_toolhost_guarded", False):
        return
    host = os.getpid()

    def _exit(status: int) -> NoReturn:
        if os.getpid() == host and _in_tool():
            raise _refused(f"os._exit({status!r})")
        original(status)

    _exit._toolhost_guarded = True  # type: ignore[attr-defined]
    os._exit = _exit
    for name in ("chdir", "fchdir"):
        if name in os.__dict__:
            os.__dict__[name] = _counted(os.__dict__[name])
    _watch_environ()
    _guard_signals(host)
    _mark_started_threads()


# signals that end (or stop) a process by default, or that toolhost handles as "stop"
_FATAL = frozenset({"SIGTERM", "SIGKILL", "SIGINT", "SIGQUIT", "SIGABRT", "SIGHUP", "SIGSTOP",
                    "SIGTSTP", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGSEGV", "SIGBUS", "SIGFPE",
                    "SIGILL", "SIGTRAP", "SIGSYS", "SIGPIPE", "SIGXCPU", "SIGXFSZ"})


def _guard_signals(host: int) -> None:
    """``os.kill``/``os.killpg`` of the host (or its group), ``signal.raise_signal`` and
    ``os.abort`` by a tool's code: refused like ``os._exit``."""
    import signal

    def fatal(sig: int) -> bool:
        try:
            return signal.Signals(sig).name in _FATAL
        except ValueError:
            return False

    kill, killpg, raise_signal, abort = os.kill, os.killpg, signal.raise_signal, os.abort

    def _kill(pid: int, sig: int) -> None:
        if pid in (host, 0, -os.getpgid(0)) and os.getpid() == host and fatal(sig) \
                and _in_tool():
            raise _refused(f"os.kill({pid}, {signal.Signals(sig).name})")
        kill(pid, sig)

    def _killpg(pgid: int, sig: int) -> None:
        if pgid in (0, os.getpgid(0)) and os.getpid() == host and fatal(sig) and _in_tool():
            raise _refused(f"os.killpg({pgid}, {signal.Signals(sig).name})")
        killpg(pgid, sig)

    def _raise_signal(sig: int) -> None:
        if os.getpid() == host and fatal(sig) and _in_tool():
            raise _refused(f"signal.raise_signal({signal.Signals(sig).name})")
        raise_signal(sig)

    def _abort() -> NoReturn:
        if os.getpid() == host and _in_tool():
            raise _refused("os.abort()")
        abort()

    os.kill, os.killpg, os.abort = _kill, _killpg, _abort
    signal.raise_signal = _raise_signal


def _mark_started_threads() -> None:
    """A thread a tool's code starts is the tool's too (its ``os._exit`` is refused)."""
    start = threading.Thread.start

    def _start(self: threading.Thread) -> None:
        if _in_tool():
            self._toolhost_tool = True  # type: ignore[attr-defined]
        start(self)

    threading.Thread.start = _start  # type: ignore[method-assign]


# changes so far: [any, a tool's] (lists: no global statement in the wrappers)
_chdirs = [0, 0]
_envs = [0, 0]


def _counted(change: Callable[..., Any]) -> Callable[..., Any]:
    def counted(*args: Any, **kwargs: Any) -> Any:
        result = change(*args, **kwargs)
        _chdirs[0] += 1
        if _in_tool():
            _chdirs[1] += 1
        else:
            HOST_STATE.host_moved()
        return result
    counted.__doc__, counted.__name__ = change.__doc__, change.__name__
    return counted


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
    if _in_tool():
        _envs[1] += 1
    else:
        HOST_STATE.host_set(key, value)


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
        self._envs = -1  # _envs[0] when the environment was last copied
        self._env: dict[str, str] = {}
        self._tool_chdirs = self._tool_envs = 0  # a tool's changes when the run started
        self._streams: tuple[Any, Any, Any] = (None, None, None)

    def host_moved(self) -> None:
        """The host (not a tool) changed the working directory: that is where to go back."""
        if self._busy:
            self._read_cwd()

    def host_set(self, key: str, value: str | None) -> None:
        """The host (not a tool) changed ``os.environ[key]``: keep it when putting back."""
        if self._busy:
            if value is None:
                self._env.pop(key, None)
            else:
                self._env[key] = value

    def _read_cwd(self) -> None:
        self._chdirs = _chdirs[0]
        try:
            self._cwd = os.getcwd()
        except OSError:  # the directory was removed: nothing to go back to
            self._cwd = ""

    def enter(self) -> None:
        self._busy += 1
        if self._busy > 1:
            return
        if self._chdirs != _chdirs[0]:  # the host (or an embedder) moved: that is its own
            self._read_cwd()
        if self._envs != _envs[0]:
            self._envs = _envs[0]
            self._env = os.environ.copy()
        self._tool_chdirs, self._tool_envs = _chdirs[1], _envs[1]
        self._streams = (sys.stdin, sys.stdout, sys.stderr)

    def leave(self, tool: str) -> None:
        self._busy -= 1
        if self._busy > 0:
            return
        changed: list[str] = []
        if self._tool_chdirs != _chdirs[1] and self._cwd:
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
        if self._tool_envs != _envs[1]:
            names = _restore_env(self._env)
            if names:
                changed.append(f"environment ({names})")
            self._envs = _envs[0]
        streams = (sys.stdin, sys.stdout, sys.stderr)
        moved = [n for n, a, b in zip(("stdin", "stdout", "stderr"), streams, self._streams,
                                      strict=True) if a is not b]
        if moved:
            sys.stdin, sys.stdout, sys.stderr = self._streams
            changed.append("sys." + "/".join(moved))
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
