"""A real Ctrl-C while plugins load, told apart from a plugin's own ``KeyboardInterrupt``.

A plugin whose import or ``register()`` raises ``KeyboardInterrupt`` ended every command with
exit 130 and no word, exactly as a person's Ctrl-C does. While plugins load, the SIGINT
handler in place is wrapped so that a ``KeyboardInterrupt`` the signal raised is noted: one
not noted was raised by code (a plugin), and is that plugin's load error; one noted still
ends the command (exit 130), even when the plugin caught it and went on.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = ["CtrlC", "ctrl_c_noted"]


class CtrlC:
    """``pressed`` once a real SIGINT raised ``KeyboardInterrupt`` in the watched block."""

    def __init__(self) -> None:
        self.pressed = False


@contextlib.contextmanager
def ctrl_c_noted() -> Iterator[CtrlC]:
    """Note a real Ctrl-C in the block (see the module's docstring).

    Off the main thread (a reload) no signal is ever delivered to this thread, and with
    SIGINT ignored or left to the system (``SIG_IGN``, ``SIG_DFL``: the process ends by the
    signal) a Ctrl-C raises nothing here: in each case every ``KeyboardInterrupt`` in the
    block is code's, and nothing is installed.
    """
    noted = CtrlC()
    if threading.current_thread() is not threading.main_thread():
        yield noted
        return
    try:
        previous = signal.getsignal(signal.SIGINT)
    except ValueError:  # not the main interpreter
        previous = None
    if not callable(previous):
        yield noted
        return
    handler = previous  # whatever it is (Python's own, `toolhost run`'s): it still decides

    def note(signum: int, frame: FrameType | None) -> None:
        try:
            handler(signum, frame)
        except KeyboardInterrupt:
            noted.pressed = True
            raise

    signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        if signal.getsignal(signal.SIGINT) is note:  # a plugin that set its own keeps it
            signal.signal(signal.SIGINT, previous)
