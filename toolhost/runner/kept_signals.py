"""The signal dispositions of ``toolhost run`` are its own: an import cannot keep them.

Loading a config imports code: plugins, and the modules of python tools. One that sets a
signal's disposition at import changes the whole process. ``SIGCHLD`` ignored makes the
kernel reap every child at once: each command tool then "exited with code 255" and the CLI's
exit status was lost; ``SIGQUIT`` ignored takes away Ctrl-\\, the way out when a clean stop
hangs; ``SIGPIPE`` at its default kills toolhost on a write to a closed pipe, saying nothing.
``kept_signals`` notes every disposition before the load and puts back those the load
changed, naming them (a warning): the session's signals stay the ones it documents. A
handler installed below Python (a C extension's ``sigaction``) cannot be seen or put back.
While the session runs, ``runner.owned_signals`` keeps them so: a tool cannot change one.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

__all__ = ["kept_signals"]

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
    from toolhost.runner.tool_system import in_place

    put_back: list[str] = []
    before = _dispositions()
    try:
        with in_place():  # a tools module's ``from os import system`` takes ours (Ctrl-C)
            yield put_back
    finally:
        for signum, handler in before.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                if handler is not None and signal.getsignal(signum) is not handler:
                    signal.signal(signum, handler)  # type: ignore[arg-type]
                    put_back.append(signum.name)
