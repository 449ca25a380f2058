"""What an in-process python tool cannot do to end the host it shares a process with.

``os._exit()``, ``os.abort()``, ``os.kill``/``os.killpg`` of the host (or its group) and
``signal.raise_signal`` with a signal that ends or stops it, called by a tool's code (a sync
tool's pool thread, a thread a tool started, an async tool's call and the tasks it starts)
raise ``HostExitRefused`` instead, a ``BaseException`` that becomes that call's error result
(``python_calls``); every other call goes on. The host's own ``os._exit`` elsewhere, and a
child process the tool forked, exit as ever. Likewise ``sys.exit()`` or ``KeyboardInterrupt``
in a task an async tool started (asyncio lets those two out of the event loop): that task
fails with a ``ToolRaised``. (``toolhost.backends.host_guards`` installs these, with the
guards of the host's cwd, environment and streams.)
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NoReturn

__all__ = ["IN_TOOL", "HostExitRefused", "acts", "contain_tasks", "guard_ends", "in_tool",
           "mark_tool_thread"]

# set while an async tool's code runs on the event loop (its tasks inherit it)
IN_TOOL: ContextVar[bool] = ContextVar("toolhost_in_tool", default=False)
_TOOL_THREAD = threading.local()


class HostExitRefused(BaseException):
    """``os._exit`` called by an in-process tool: its call fails instead of the host (not a
    ``SystemExit``: asyncio lets that one out of a task, and out of the event loop)."""


def mark_tool_thread() -> None:
    """Called once by each pool thread that runs sync tools: its ``os._exit`` is refused."""
    _TOOL_THREAD.tool = True


def in_tool() -> bool:
    """Whether the code running now is a tool's (its pool thread, a thread it started, or
    its async call and the tasks that call created)."""
    return (IN_TOOL.get() or getattr(_TOOL_THREAD, "tool", False)
            or getattr(threading.current_thread(), "_toolhost_tool", False))


def _refused(what: str) -> HostExitRefused:
    return HostExitRefused(
        f"{what} would have ended toolhost itself, with every other call; an in-process "
        "tool cannot end the host (give it `isolation: process` if it must exit)")


def guard_ends(host: int) -> None:
    """Replace ``os._exit``, ``os.kill``/``os.killpg``, ``os.abort`` and
    ``signal.raise_signal`` (once per process; ``host`` is its pid), and mark the threads
    a tool starts as the tool's."""
    original: Callable[[int], NoReturn] = os._exit
    if getattr(original, "_toolhost_guarded", False):
        return

    def _exit(status: int) -> NoReturn:
        if os.getpid() == host and in_tool():
            raise _refused(f"os._exit({status!r})")
        original(status)

    _exit._toolhost_guarded = True  # type: ignore[attr-defined]
    os._exit = _exit
    _guard_signals(host)
    _mark_started_threads()


# a signal whose default action does nothing to the process: sent to it, it acts only when
# a handler is set (toolhost's own, or a library's)
_HARMLESS_BY_DEFAULT = frozenset({"SIGCHLD", "SIGURG", "SIGWINCH", "SIGCONT"})


def acts(sig: int) -> bool:
    """Whether ``sig`` sent to this process would do something to it: end or stop it (the
    default action of every signal but four, real-time ones and SIGVTALRM, SIGPROF, SIGIO,
    SIGTTIN included), or run a handler toolhost set (SIGTERM stops the session). Only an
    ignored one, or one of the four left at their default, does nothing."""
    import signal

    try:
        handler = signal.getsignal(sig)
    except (ValueError, OSError, TypeError):
        return False  # no such signal: os.kill says so itself
    if handler is signal.SIG_IGN:
        return False
    if handler is signal.SIG_DFL or handler is None:
        try:
            return signal.Signals(sig).name not in _HARMLESS_BY_DEFAULT
        except ValueError:
            return True  # a real-time signal: its default action ends the process
    return True


def _guard_signals(host: int) -> None:
    """``os.kill``/``os.killpg`` of the host (or its group), ``signal.raise_signal`` and
    ``os.abort`` by a tool's code: refused like ``os._exit``."""
    import signal

    def name(sig: int) -> str:
        try:
            return signal.Signals(sig).name
        except ValueError:
            return f"signal {sig}"

    fatal = acts
    kill, killpg, raise_signal, abort = os.kill, os.killpg, signal.raise_signal, os.abort

    def _kill(pid: int, sig: int) -> None:
        if pid in (host, 0, -os.getpgid(0)) and os.getpid() == host and fatal(sig) \
                and in_tool():
            raise _refused(f"os.kill({pid}, {name(sig)})")
        kill(pid, sig)

    def _killpg(pgid: int, sig: int) -> None:
        if pgid in (0, os.getpgid(0)) and os.getpid() == host and fatal(sig) and in_tool():
            raise _refused(f"os.killpg({pgid}, {name(sig)})")
        killpg(pgid, sig)

    def _raise_signal(sig: int) -> None:
        if os.getpid() == host and fatal(sig) and in_tool():
            raise _refused(f"signal.raise_signal({name(sig)})")
        raise_signal(sig)

    def _abort() -> NoReturn:
        if os.getpid() == host and in_tool():
            raise _refused("os.abort()")
        abort()

    os.kill, os.killpg, os.abort = _kill, _killpg, _abort
    signal.raise_signal = _raise_signal


def _mark_started_threads() -> None:
    """A thread a tool's code starts is the tool's too (its ``os._exit``, its ``os.chdir``
    are refused): a ``threading.Thread``, a bare ``_thread.start_new_thread``, and a job it
    hands to a thread pool's thread the host started (``run_in_executor``)."""
    import _thread
    from concurrent.futures import ThreadPoolExecutor

    start, submit = threading.Thread.start, ThreadPoolExecutor.submit

    def _start(self: threading.Thread) -> None:
        if in_tool():
            self._toolhost_tool = True  # type: ignore[attr-defined]
        start(self)

    def _submit(self: ThreadPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        if in_tool():
            fn = _as_tool(fn)
        return submit(self, fn, *args, **kwargs)

    threading.Thread.start = _start  # type: ignore[method-assign]
    ThreadPoolExecutor.submit = _submit  # type: ignore[method-assign,assignment]
    # the raw ways to a thread, and their aliases (3.13: start_joinable_thread)
    for module, names in ((_thread, ("start_new_thread", "start_new", "start_joinable_thread")),
                          (threading, ("_start_new_thread", "_start_joinable_thread"))):
        for name in names:
            if name in module.__dict__:
                setattr(module, name, _raw_start(module.__dict__[name]))


def _raw_start(raw: Callable[..., Any]) -> Callable[..., Any]:
    def start(function: Any, *args: Any, **kwargs: Any) -> Any:
        if in_tool():
            from toolhost.backends.thread_errors import quiet_raw_thread

            name = str(getattr(function, "__name__", "?"))
            function = quiet_raw_thread(_as_tool(function), name)
        return raw(function, *args, **kwargs)
    return start


def _as_tool(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` run as a tool's code, on whichever thread runs it."""
    def run(*args: Any, **kwargs: Any) -> Any:
        before = getattr(_TOOL_THREAD, "tool", False)
        _TOOL_THREAD.tool = True
        try:
            return function(*args, **kwargs)
        finally:
            _TOOL_THREAD.tool = before
    return run


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
