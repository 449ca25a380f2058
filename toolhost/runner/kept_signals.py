"""The signal dispositions of ``toolhost run`` are its own: an import cannot keep them.

Loading a config imports code: plugins, and the modules of python tools. One that sets a
signal's disposition at import changes the whole process. ``SIGCHLD`` ignored makes the
kernel reap every child at once: each command tool then "exited with code 255" and the CLI's
exit status was lost; ``SIGQUIT`` ignored takes away Ctrl-\\, the way out when a clean stop
hangs; ``SIGPIPE`` at its default kills toolhost on a write to a closed pipe, saying nothing.
``kept_signals`` notes every disposition before the load and puts back those the load
changed, naming them (a warning): the session's signals stay the ones it documents. A
handler installed below Python (a C extension's ``sigaction``) cannot be seen or put back.
While the session runs, ``signals_owned`` keeps them so: a tool cannot change one.
"""

from __future__ import annotations

import contextlib
import signal
import sys
from collections.abc import Iterator
from typing import Any

__all__ = ["kept_signals", "signals_owned"]

_FIXED = {signal.SIGKILL, signal.SIGSTOP}  # no process can change these


def _dispositions() -> dict[signal.Signals, object]:
    found: dict[signal.Signals, object] = {}
    for signum in signal.valid_signals():
        if not isinstance(signum, signal.Signals) or signum in _FIXED:
            continue  # a real-time signal has no name: nothing toolhost relies on
        with contextlib.suppress(ValueError, OSError):
            found[signum] = signal.getsignal(signum)
    return found


@contextlib.contextmanager
def kept_signals() -> Iterator[list[str]]:
    """Around a load: every signal disposition the block changed is put back after it (on
    the main thread; elsewhere nothing can change them). Yields a list that then names the
    signals put back (``SIGCHLD``), in signal order."""
    put_back: list[str] = []
    before = _dispositions()
    try:
        yield put_back
    finally:
        for signum, handler in before.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                if handler is not None and signal.getsignal(signum) is not handler:
                    signal.signal(signum, handler)  # type: ignore[arg-type]
                    put_back.append(signum.name)


_OWN = ("toolhost", "asyncio", "anyio")  # the callers that may set a disposition meanwhile


def _ours(module: str) -> bool:
    return any(module == own or module.startswith(own + ".") for own in _OWN)


@contextlib.contextmanager
def signals_owned() -> Iterator[None]:
    """While the session runs its signals are its own: ``signal.signal`` called by any code
    but toolhost's and the event loop's (an in-process python tool, a library it calls)
    raises ``ValueError``, as it does off the main thread (which a tool run in a worker
    thread meets anyway). An async tool that set SIGTERM back to its default made the next
    SIGTERM end toolhost outright: no call answered, no audit line, the terminal's modes
    left to the watchdog. (A reference taken before, ``from signal import signal``, is not
    seen; nor is ``set_wakeup_fd`` or a mask.)"""
    original = signal.signal

    def guarded(signalnum: int, handler: Any) -> Any:
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if not isinstance(caller, str) or not _ours(caller):
            try:
                name = signal.Signals(signalnum).name
            except ValueError:
                name = f"signal {signalnum}"
            raise ValueError(f"{name} belongs to toolhost run while its session runs: a "
                             "tool cannot change how it is handled")
        return original(signalnum, handler)

    setattr(signal, "signal", guarded)  # noqa: B010 (mypy: a module's function)
    try:
        yield
    finally:
        if signal.signal is guarded:
            setattr(signal, "signal", original)  # noqa: B010
