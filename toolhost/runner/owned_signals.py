"""While ``toolhost run``'s session runs, its signals are its own: a tool cannot take one.

The session's stop (every call answered, an audit line each, the terminal given back) rests
on the event loop receiving SIGINT, SIGTERM, SIGHUP, SIGCONT and SIGTSTP. An in-process
python tool runs on that loop's thread (an async one) or in a worker thread. On the loop's
thread it could take a signal away in four ways, each of which is refused here while the
session runs:

- ``signal.signal(SIGTERM, SIG_DFL)``: the next SIGTERM ended toolhost outright;
- ``loop.add_signal_handler(SIGTERM, f)``: asyncio replaces the session's handler with
  ``f`` before it calls ``signal.signal``, so a refusal there came too late: SIGTERM then
  did nothing, and a stop never came (the same for ``remove_signal_handler``);
- ``signal.set_wakeup_fd(-1)`` (or another fd): the loop is never woken by a signal;
- ``signal.pthread_sigmask`` blocking one of them on the loop's thread.

Who asks is judged by the first frame above the call that is not asyncio's, anyio's or
contextlib's (they act for their caller): it must be toolhost's. A function the loop calls
as a callback (``loop.call_soon(signal.signal, ...)``) was scheduled by someone else, so it
is refused too. The guards sit in the C module ``_signal`` itself and where ``signal``
re-exports its functions: ``signal.signal`` and ``signal.pthread_sigmask`` (Python functions
calling ``_signal``) are guarded through every reference, and so is a tool's own ``import
_signal``. Refused as well: arming a timer (``signal.alarm``, ``setitimer``: a tool cannot
set a handler for SIGALRM, so its default action ended toolhost, every call in flight
unanswered), ``signal.pthread_kill`` of a signal that would act, ``siginterrupt`` of a
session signal.

What no guard sees (a reference to a C function taken before the session, ``from signal
import set_wakeup_fd``; ``ctypes`` calling libc's ``sigaction``) is put back after each
in-process call, and named in that call's warning (``runner.signal_watch``).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any

from toolhost.runner import tool_system

if TYPE_CHECKING:
    from toolhost.runner.signal_watch import SignalWatch

__all__ = ["signals_owned"]

# what acts for its caller (the event loop's add_signal_handler): the first frame above
# them decides
_THROUGH = ("signal", "asyncio", "anyio", "contextlib")


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


_OWNER: list[int] = []  # the process whose signals are owned (not a child forked from it)


def _by_toolhost(frame: FrameType | None) -> bool:
    """Whether the call made in ``frame`` (and up) was asked for by toolhost's own code, or
    made in another process (a child a tool forked: its signals are its own)."""
    if os.getpid() not in _OWNER:
        return True
    while frame is not None:
        module = frame.f_globals.get("__name__", "")
        if not isinstance(module, str):
            return False
        if module == "asyncio.events" and frame.f_code.co_name == "_run":
            return False  # the loop calling a callback: whoever scheduled it asked
        if not _within(module, _THROUGH):
            return _within(module, ("toolhost",))
        frame = frame.f_back
    return False


def _name(signalnum: object) -> str:
    try:
        return signal.Signals(signalnum).name  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return f"signal {signalnum!r}"


_WHOSE: list[str] = []  # who owns the signals now (the innermost ``signals_owned``)


def _refusal(what: str) -> str:
    """``what`` belongs to the owner; a ``what`` ending in ':' says the rest itself."""
    whose = _WHOSE[-1] if _WHOSE else "toolhost run while its session runs"
    if what.endswith(":"):
        return f"{what[:-1]} {whose}"
    return f"{what} belongs to {whose}: a tool cannot change how it is handled"


def _owned_mask() -> frozenset[int]:
    names = ("SIGINT", "SIGTERM", "SIGHUP", "SIGCONT", "SIGTSTP", "SIGQUIT", "SIGCHLD")
    return frozenset(int(getattr(signal, n)) for n in names if hasattr(signal, n))


_signal: Any = importlib.import_module("_signal")  # (no stubs: typeshed has none)

# the C functions of ``_signal`` the guards replace (in ``_signal`` itself, and where
# ``signal`` re-exports them), as they were before any guard: what toolhost calls through
_C_NAMES = ("signal", "pthread_sigmask", "set_wakeup_fd", "siginterrupt", "alarm", "setitimer",
            "pthread_kill")
_C: dict[str, Any] = {name: getattr(_signal, name) for name in _C_NAMES
                      if hasattr(_signal, name)}
# the session's watch (the innermost ``signals_owned``'s), put back after each in-process call
_WATCHES: list[SignalWatch] = []


@contextlib.contextmanager
def signals_owned(whose: str = "toolhost run while its session runs") -> Iterator[None]:
    """See the module text: for the block, ``signal.signal``, ``signal.set_wakeup_fd``,
    ``signal.pthread_sigmask`` (blocking a session signal on the main thread),
    ``signal.siginterrupt`` of a session signal, ``signal.alarm``/``setitimer`` arming a
    timer, ``signal.pthread_kill`` with a signal that acts (also called on ``_signal``
    itself) and the running loop's ``add_signal_handler``/``remove_signal_handler`` raise
    when code other than toolhost's calls them (``ValueError`` for ``signal``'s, as off the
    main thread; ``RuntimeError`` for the loop's, as asyncio's own refusals); and after
    each in-process call, what changed them by another way is put back, named (the call's
    warning). ``whose`` names the owner in the refusal (``toolhost serve while it
    serves``)."""
    from toolhost.backends.host_guards import AFTER_CALLS
    from toolhost.runner.signal_watch import SignalWatch

    me = os.getpid()
    _OWNER.append(me)
    _WHOSE.append(whose)
    installed = _install() if len(_OWNER) == 1 else []
    loop = _running_loop()
    watch = SignalWatch(sorted(_owned_mask()), _C, loop, _told_late)
    _WATCHES.append(watch)
    AFTER_CALLS.append(_put_back)
    loop_guards = _guard_loop(loop) if loop is not None else []
    try:
        yield
    finally:
        _OWNER.remove(me)
        _WHOSE.remove(whose)
        _WATCHES.remove(watch)
        watch.close()
        AFTER_CALLS.remove(_put_back)
        for module, name, value in installed:
            setattr(module, name, value)
        for attribute in loop_guards:
            with contextlib.suppress(AttributeError):
                delattr(loop, attribute)


def _put_back(tool: str) -> str:
    """After an in-process call of ``tool``: the session's signals as it set them (see
    ``runner.signal_watch``); what was put back, or ''."""
    if not _WATCHES or os.getpid() not in _OWNER:
        return ""
    changed = _WATCHES[-1].put_back(tool)
    return f"signals ({', '.join(changed)})" if changed else ""


def _told_late(tool: str, changed: list[str]) -> None:
    """What the watch's owed look put back: ``tool`` is the first call since the look
    before, any call since may have made the change."""
    from toolhost.backends.host_guards import log

    log.warning("in-process tool %s (or a call after it) changed the host's signals (%s); "
                "put back (isolation: process keeps such changes in a worker)", tool,
                ", ".join(changed))


def _install() -> list[tuple[Any, str, Any]]:
    """Guard the C functions in ``_signal`` (``signal.signal`` and ``pthread_sigmask``, Python
    functions, call them there: every reference to those is guarded) and where ``signal``
    re-exports them; what to set back after."""
    from toolhost.backends.exit_guards import acts as sends_acting

    owned = _owned_mask()
    main = threading.main_thread()

    def blocks_owned(args: tuple[Any, ...]) -> str | None:
        if threading.current_thread() is not main or len(args) < 2:
            return None  # another thread's mask leaves the signal to the main thread
        how, signals = args[0], {int(s) for s in args[1]}
        if how == signal.SIG_UNBLOCK or not signals & owned:
            return None
        return ", ".join(sorted(_name(s) for s in signals & owned))

    def arms(args: tuple[Any, ...], at: int = 0) -> bool:
        try:
            return len(args) > at and float(args[at]) > 0
        except (TypeError, ValueError):
            return False  # the C function says what is wrong with it

    def acts(args: tuple[Any, ...]) -> str | None:
        if len(args) < 2 or not isinstance(args[1], int) or args[1] == 0 \
                or not sends_acting(args[1]):
            return None
        return f"signal.pthread_kill({_name(args[1])}) would end or stop:"

    timer = "a timer (signal.alarm, setitimer) would end, by its signal's default action,:"
    refusals: dict[str, Callable[[tuple[Any, ...]], str | None]] = {
        "signal": lambda args: _name(args[0]) if args else "a signal",
        "pthread_sigmask": blocks_owned,
        "set_wakeup_fd": lambda args: "the signal wake-up descriptor",
        "siginterrupt": lambda args: _name(args[0]) if args and args[0] in owned else None,
        "alarm": lambda args: timer if arms(args) else None,
        "setitimer": lambda args: timer if arms(args, 1) else None,
        "pthread_kill": acts,
    }
    installed: list[tuple[Any, str, Any]] = []
    for name, original in _C.items():
        guarded = _guard(name, original, refusals[name])
        for module in (_signal, signal):
            if getattr(module, name, None) is original:
                installed.append((module, name, original))
                setattr(module, name, guarded)
    installed += tool_system.put_in_place()  # a tool's os.system keeps Ctrl-C ours
    return installed


def _guard(name: str, original: Callable[..., Any],
           refuse: Callable[[tuple[Any, ...]], str | None]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        why = refuse(args)
        if why is not None and not _by_toolhost(sys._getframe(1)):
            raise ValueError(_refusal(why))
        result = original(*args, **kwargs)
        if _WATCHES and os.getpid() in _OWNER:  # toolhost's own change: the one to keep
            watch = _WATCHES[-1]
            if name in ("signal", "siginterrupt") and args:
                watch.follow(args[0])
            elif name == "set_wakeup_fd" and args:
                watch.follow(wakeup=args[0])
            elif name == "pthread_sigmask":
                watch.follow_mask()
        return result
    guarded.__name__ = guarded.__qualname__ = name
    return guarded


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _guard_loop(loop: asyncio.AbstractEventLoop) -> list[str]:
    """Guards ``loop``'s (instance) signal-handler methods; the names to delete after."""
    guarded_names: list[str] = []
    for attribute in ("add_signal_handler", "remove_signal_handler"):
        if attribute in getattr(loop, "__dict__", {}):
            continue  # already an instance attribute: not ours to shadow
        original = getattr(loop, attribute)

        def guarded(sig: int, *args: Any, _original: Callable[..., Any] = original,
                    **kwargs: Any) -> Any:
            if not _by_toolhost(sys._getframe(1)):
                raise RuntimeError(_refusal(_name(sig)))
            return _original(sig, *args, **kwargs)

        try:
            setattr(loop, attribute, guarded)
        except (AttributeError, TypeError):  # a loop without instance attributes (uvloop)
            continue
        guarded_names.append(attribute)
    return guarded_names
