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
is refused too. ``signal.signal`` and ``signal.pthread_sigmask`` are guarded where they call
the C module (``signal``'s own ``_signal``), so a reference taken before the session (``from
signal import signal`` at a module's import) is guarded as well. Not seen: a reference to
``set_wakeup_fd`` taken before, ``_signal`` imported by a tool itself, ``ctypes``
``sigaction``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

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
    whose = _WHOSE[-1] if _WHOSE else "toolhost run while its session runs"
    return f"{what} belongs to {whose}: a tool cannot change how it is handled"


def _owned_mask() -> frozenset[int]:
    names = ("SIGINT", "SIGTERM", "SIGHUP", "SIGCONT", "SIGTSTP", "SIGQUIT", "SIGCHLD")
    return frozenset(int(getattr(signal, n)) for n in names if hasattr(signal, n))


@contextlib.contextmanager
def signals_owned(whose: str = "toolhost run while its session runs") -> Iterator[None]:
    """See the module text: for the block, ``signal.signal``, ``signal.set_wakeup_fd``,
    ``signal.pthread_sigmask`` (blocking a session signal on the main thread) and the
    running loop's ``add_signal_handler``/``remove_signal_handler`` raise when code other
    than toolhost's calls them (``ValueError`` for ``signal``'s, as off the main thread;
    ``RuntimeError`` for the loop's, as asyncio's own refusals). ``whose`` names the owner
    in the refusal (``toolhost serve while it serves``)."""
    main = threading.main_thread()
    owned = _owned_mask()
    me = os.getpid()
    _OWNER.append(me)
    _WHOSE.append(whose)

    def blocks_owned(args: tuple[Any, ...]) -> str | None:
        if threading.current_thread() is not main or len(args) < 2:
            return None  # another thread's mask leaves the signal to the main thread
        how, signals = args[0], {int(s) for s in args[1]}
        if how == signal.SIG_UNBLOCK or not signals & owned:
            return None
        return ", ".join(sorted(_name(s) for s in signals & owned))

    refusals: dict[str, Callable[[tuple[Any, ...]], str | None]] = {
        "signal": lambda args: _name(args[0]) if args else "a signal",
        "pthread_sigmask": blocks_owned,
    }
    # ``signal.signal`` (a Python function) calls ``_signal.signal`` from signal's globals:
    # guarded there, every reference to it is
    c_module = getattr(signal, "_signal", None)
    guarded_c = _GuardedC(c_module, refusals) if c_module is not None else None
    if guarded_c is not None:
        setattr(signal, "_signal", guarded_c)  # noqa: B010
    original_wakeup = signal.set_wakeup_fd

    def set_wakeup_fd(*args: Any, **kwargs: Any) -> Any:
        if not _by_toolhost(sys._getframe(1)):
            raise ValueError(_refusal("the signal wake-up descriptor"))
        return original_wakeup(*args, **kwargs)

    setattr(signal, "set_wakeup_fd", set_wakeup_fd)  # noqa: B010
    loop = _running_loop()
    loop_guards = _guard_loop(loop) if loop is not None else []
    try:
        yield
    finally:
        _OWNER.remove(me)
        _WHOSE.remove(whose)
        setattr(signal, "set_wakeup_fd", original_wakeup)  # noqa: B010
        if guarded_c is not None and getattr(signal, "_signal", None) is guarded_c:
            setattr(signal, "_signal", c_module)  # noqa: B010
        for attribute in loop_guards:
            with contextlib.suppress(AttributeError):
                delattr(loop, attribute)


class _GuardedC:
    """Stands for the C module ``_signal`` in ``signal``'s globals: the functions named in
    ``refusals`` are refused to code other than toolhost's when their refusal says why;
    everything else is the module's own."""

    def __init__(self, module: Any, refusals: dict[str, Callable[[tuple[Any, ...]],
                                                               str | None]]) -> None:
        self._module = module
        for name, refuse in refusals.items():
            original = getattr(module, name, None)
            if original is not None:
                setattr(self, name, self._guard(original, refuse))

    @staticmethod
    def _guard(original: Callable[..., Any], refuse: Callable[[tuple[Any, ...]], str | None]
               ) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            why = refuse(args)
            if why is not None and not _by_toolhost(sys._getframe(1)):
                raise ValueError(_refusal(why))
            return original(*args, **kwargs)
        return guarded

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


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
