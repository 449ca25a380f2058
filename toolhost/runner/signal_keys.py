"""Ctrl-C, Ctrl-Z and Ctrl-\\ read as keys while the ``> `` prompt is read, so a paste that
carries one of them stays text.

In its normal mode the terminal turns these characters into signals (``ISIG``) as they
arrive, before anything reads them: a Ctrl-C inside pasted text flushed the line being read
(with the paste's start mark) and interrupted toolhost, and the lines pasted after it were
then read as typed turns. While the turn prompt is read with paste marks on (and only then:
never while a turn runs, never at a permission question), ``ISIG`` is off, and the interrupt
and suspend keys (whatever ``stty`` names them) become line ends (``VEOL``, ``VEOL2``): the
kernel still edits the line (Backspace, Ctrl-U, Ctrl-W, echo), and hands the line over as soon
as one of them is pressed. ``Terminal`` then tells a key the person pressed (outside a paste)
from one the pasted text carried (inside the marks, or with more of the paste behind it) and,
for the person's key, does what the kernel would have done: drops what was typed and sends
the signal to the terminal's foreground process group (``send``). The quit key (Ctrl-\\) has
no line end left to it: typed outside a paste it takes effect at Enter.

At a permission question (``off(signals=False)``) the signal keys stay signals and ESC is
made a line end (``VEOL``) instead: a paste's start mark (``ESC[200~``) then reaches toolhost
as it comes, so a paste with no newline of its own is seen and dropped without waiting for an
Enter (``terminal_paste.PasteInput._after_escape``).

``off`` and ``on`` change and put back only ``ISIG``, ``VEOL`` and ``VEOL2`` (``stty -a``
equal after); ``on`` runs wherever the prompt's read ends and before Ctrl-Z stops toolhost.
A ``kill -9`` at the prompt leaves no chance to put them back: the watchdog does it (see
``toolhost.backends.watchdog``), as it turns the paste marks off.
"""

from __future__ import annotations

import contextlib
import os
import signal
import termios
from collections.abc import Iterator

__all__ = ["ESC", "SignalKeys"]

ESC = b"\x1b"  # what a paste's start mark begins with (``off(signals=False)``)


class SignalKeys:
    """The prompt's terminal with ``ISIG`` off while it is read (see the module docstring)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.keys: dict[bytes, int] = {}  # the character -> the signal it sends, while off
        self._saved: list[object] | None = None  # the modes ``off`` changed, for ``on``
        self.escape = False  # ESC ends a line (a question: ``off(signals=False)``)

    @property
    def active(self) -> bool:
        return self._saved is not None

    @property
    def restore(self) -> tuple[int, int] | None:
        """The ``VEOL`` and ``VEOL2`` characters to put back (with ``ISIG``), while off."""
        if self._saved is None:
            return None
        cc = self._saved[6]
        assert isinstance(cc, list)
        return _code(cc[termios.VEOL]), _code(cc[termios.VEOL2])

    def off(self, *, signals: bool = True) -> bool:
        """Turn the signal keys into line ends; False (nothing changed) when the terminal is
        not in line mode with ``ISIG`` on, or its modes cannot be set. ``signals=False`` (at a
        permission question): the signal keys stay signals, and ESC ends a line instead
        (``escape``): a paste's start mark is seen as it comes, not at the next Enter."""
        if self._saved is not None:
            return True
        try:
            modes = termios.tcgetattr(self.fd)
        except (OSError, termios.error):
            return False
        cc = list(modes[6])
        if not modes[3] & termios.ISIG or not modes[3] & termios.ICANON:
            return False
        named = ((cc[termios.VINTR], signal.SIGINT), (cc[termios.VSUSP], signal.SIGTSTP),
                 (cc[termios.VQUIT], signal.SIGQUIT))
        keys = {key: int(signum) for key, signum in named
                if isinstance(key, bytes) and len(key) == 1 and 0 < key[0] < 0x20}
        if not keys and signals:
            return False
        changed = [*modes[:6], cc]
        if signals:
            changed[3] = modes[3] & ~termios.ISIG
            ends = [key for key, signum in keys.items() if signum != signal.SIGQUIT]
            cc[termios.VEOL] = ends[0] if ends else b"\0"
            cc[termios.VEOL2] = ends[1] if len(ends) > 1 else b"\0"
        else:
            cc[termios.VEOL] = ESC
        try:
            termios.tcsetattr(self.fd, termios.TCSANOW, changed)
        except (OSError, termios.error):
            return False
        self._saved = [*modes[:6], list(modes[6])]
        self.keys = keys if signals else {}
        self.escape = not signals
        return True

    def on(self) -> None:
        """Put ``ISIG``, ``VEOL`` and ``VEOL2`` back as they were before ``off``."""
        if self._saved is None:
            return
        saved, self._saved = self._saved, None
        self.keys = {}
        self.escape = False
        # SIGTTOU blocked: a shell may have taken the terminal back already (Ctrl-Z also
        # stops an `sh -c` parent in our group, and bash then takes it at once); setting the
        # modes from the background would stop toolhost there, and again after `fg`
        with _no_ttou(), contextlib.suppress(OSError, termios.error):
            now = termios.tcgetattr(self.fd)
            cc = list(now[6])
            old = saved[6]
            assert isinstance(old, list) and isinstance(saved[3], int)
            cc[termios.VEOL], cc[termios.VEOL2] = old[termios.VEOL], old[termios.VEOL2]
            back = [*now[:6], cc]
            back[3] = now[3] | (saved[3] & termios.ISIG)
            termios.tcsetattr(self.fd, termios.TCSANOW, back)

    def held(self, line: str) -> int:
        """The signal of the first signal key ``line`` holds (0: none)."""
        for key, signum in self.keys.items():
            if key.decode("latin-1") in line:
                return signum
        return 0

    def strip(self, line: str) -> tuple[str, int]:
        """``line`` (a piece of a paste) without the signal keys it carried, and how many."""
        count = 0
        for key in self.keys:
            char = key.decode("latin-1")
            if char in line:
                count += line.count(char)
                line = line.replace(char, "")
        return line, count

    def send(self, signum: int) -> None:
        """Do what the kernel does for a signal key: drop what was typed and not read (unless
        ``stty noflsh``), and signal the terminal's foreground process group (this process,
        when the terminal is not its controlling one)."""
        with contextlib.suppress(OSError, termios.error):
            if not termios.tcgetattr(self.fd)[3] & termios.NOFLSH:
                termios.tcflush(self.fd, termios.TCIFLUSH)
        try:
            group = os.tcgetpgrp(self.fd)
        except OSError:
            group = -1
        try:
            if group > 0:
                os.killpg(group, signum)
            else:
                os.kill(os.getpid(), signum)
        except OSError:
            os.kill(os.getpid(), signum)


@contextlib.contextmanager
def _no_ttou() -> Iterator[None]:
    blocked = hasattr(signal, "pthread_sigmask")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTTOU}) if blocked else set()
    try:
        yield
    finally:
        if blocked:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _code(key: object) -> int:
    return key[0] if isinstance(key, bytes) and key else 0
