"""The terminal's input for ``toolhost.runner.terminal.Terminal``: its state, what it
writes (prompts, paste marks), what was typed ahead, and reading one line.

``Terminal`` (``terminal.py``) decides what a line read is for (a turn, a question's answer);
``terminal_paste.py`` reads pastes; this module holds what both build on: the line read from
the terminal's own non-blocking descriptor on the event loop (``_read_line``), the modes it
is left in (told to the watchdog), and the paste marks turned on and off (``_mark_pastes``).
What was typed ahead is ``terminal_typeahead.py``'s.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import signal
import sys
import termios
from collections.abc import Callable
from typing import Any

import anyio

from toolhost.backends import watchdog
from toolhost.runner import paste as marks
from toolhost.runner.line_edit import LineEdit
from toolhost.runner.signal_keys import ESC, SignalKeys
from toolhost.runner.ttyheld import foreground, hung_up, tty_name
from toolhost.runner.ttymodes import canonical, line_mode, line_mode_off

__all__ = ["CANON_LIMIT", "MAX_LINE", "OVERFLOW", "TerminalInput"]

MAX_LINE = 64 * 1024  # a longer line is cut (said so): memory stays bounded
# The longest line a terminal in its normal (canonical) mode hands over: the kernel keeps
# 4,096 bytes of a line being typed on Linux (1,024 on macOS and the BSDs), newline
# included, and silently drops what is typed or pasted past that. A line that long lost its
# end: it is never sent as a turn (said so), and a question's answer that long is said cut.
CANON_LIMIT = 4095 if sys.platform.startswith("linux") else 1023
# Typed ahead this much, the terminal's input buffer was (about) full: a paste larger than it
# was still being written, and what follows is dropped while it keeps coming (``drain``)
OVERFLOW = CANON_LIMIT // 2

class TerminalInput:
    """The state of a ``Terminal`` and its line reading (see the module docstring)."""

    def __init__(self, read_fd: int, write_fd: int, *, owned: tuple[int, ...] = (),
                 typed: bool | None = None, stdin: int | None = None,
                 paste: bool | None = None) -> None:
        self.read_fd = read_fd
        self.write_fd = write_fd
        self._owned = owned
        self._typed = read_fd == 0 if typed is None else typed
        self._stdin = stdin  # fd 0 as it was (``hide_stdin``): put back by ``close``
        self._modes: list[Any] | None = None  # the terminal's modes at open, for ``close``
        with contextlib.suppress(OSError, termios.error):
            self._modes = termios.tcgetattr(read_fd)
        self._lock = anyio.Lock()
        self._holder: int | None = None  # the task holding ``_lock`` (``Terminal.holding``)
        self._scope: anyio.CancelScope | None = None
        self._interrupted = False
        self.question = False  # a permission question is being read now
        # called as each question's read ends (answered, Ctrl-C, withdrawn): what was held
        # while it was open goes out (``held_output``)
        self.after_question: list[Callable[[], None]] = []
        self._prompt = ""  # what the read in progress showed (``reshow``)
        self.ending = False  # the session is stopping: an abandoned question is no news
        # whether the Claude CLI is gone (``run_host`` sets it): a question cancelled then
        # was not withdrawn by the CLI, and is not said to be
        self.cli_gone: Callable[[], bool] | None = None
        self._withdrawn = False  # a question was cancelled from outside (see ``readline``)
        # the terminal hung up (closed): nobody is there to answer or type. ``on_hangup`` is
        # called once when a read sees it (``run_host``: the session stops as at SIGHUP,
        # which may come later or, under ``nohup``, never)
        self.hung_up = False
        self.on_hangup: Callable[[], None] | None = None
        self.refuse_questions = False  # after Ctrl-C at one: the turn's other questions too
        self._with_answer = 0  # bytes of lines that came with a question's answer (a paste)
        self._cut = False  # the last line read reached CANON_LIMIT: the terminal cut it
        # bracketed paste (``toolhost.runner.paste``): at the turn prompt a paste is one turn;
        # at a question (the terminal's, or ``/dev/tty``'s when turns come from a pipe) a
        # paste is never the answer
        self.brackets = marks.wanted(write_fd) if paste is None else paste
        self._bracketing = False  # the terminal marks pastes now (the turn prompt is read)
        self._tty_path: str | None = None  # the terminal's name, for the watchdog
        # Ctrl-C/Ctrl-Z/Ctrl-\ are keys while the turn prompt is read (marks on): a paste
        # carrying one stays text (``toolhost.runner.signal_keys``)
        self._keys = SignalKeys(read_fd)
        self._key = 0  # the signal of the key that ended the last line read (0: none)
        self._resume_pending = False  # resumed in the background: reshow once in front
        self._waiting: anyio.CancelScope | None = None  # the read's wait for input
        # the signal keys are read as keys while the marks are on (the turn prompt); at a
        # question they stay signals: a Ctrl-C a paste carries denies it
        self._keys_too = True
        # a question's answer edited here (``line_edit``), and the modes its reading turned
        # off (line mode, echo: ``_answer_keys_on``), with VMIN and VTIME as they were: back
        # on before Ctrl-Z stops toolhost, off again after fg
        self._edit: LineEdit | None = None
        self._answer_flags: int | None = None
        self._answer_saved: tuple[int, object, object] = (0, None, None)
        self._answer_echo = True
        self._answer_ctl = (b"\x7f", b"\x15", b"\x17", b"\x04")  # erase, kill, werase, eof
        # keys read in line mode as line mode was turned off for an answer, not edited yet
        self._ahead = b""
        self._watched = False  # the watchdog knows of modes to put back (``_watch_modes``)
        self._utf8 = False  # IUTF8 was turned on for the read in progress (``_utf8_input``)

    def write(self, text: str) -> None:
        """Write to the terminal, all of it; a terminal that went away (hang-up) is not an
        error. On a non-blocking descriptor (``/dev/tty`` when turns come from a pipe) a
        terminal slow to take a long question refuses the rest for a moment: that is waited
        for, never dropped (the question's end, and ``Allow?``, were lost past ~8 KB)."""
        data = memoryview(text.encode("utf-8", errors="replace"))
        with contextlib.suppress(OSError):
            while data:
                try:
                    data = data[os.write(self.write_fd, data):]
                except BlockingIOError:
                    writable = select.poll()
                    writable.register(self.write_fd, select.POLLOUT)
                    writable.poll()  # (a hang-up ends it too: the next write fails, EIO)

    def suspend(self) -> None:
        """Stop marking pastes (before Ctrl-Z stops toolhost, and at close): the shell's
        terminal is left as it was. ``reshow`` turns it on again after ``fg``."""
        if self._bracketing:
            self._mark_pastes(False)
        if self._answer_flags is not None and foreground(self.read_fd):
            line_mode(self.read_fd, self._answer_flags)
        if self._utf8:
            _set_utf8(self.read_fd, False)
        self._watch_modes()

    def _mark_pastes(self, on: bool, *, keys: bool | None = None) -> None:
        # the watchdog hears of it too: it turns the marks off (and the signal keys back on)
        # if toolhost is killed outright. ``keys``: the signal keys read as keys too (None:
        # as the last time the marks were turned on, e.g. again after ``fg``)
        if keys is not None:
            self._keys_too = keys
        if on and foreground(self.read_fd):
            self._keys.off(signals=self._keys_too)  # at a question: ESC ends a line
        elif not on:
            self._keys.on()
        self.write(marks.ON if on else marks.OFF)
        if on and self._tty_path is None:
            self._tty_path = tty_name(self.read_fd)
        if self._tty_path:
            watchdog.pastes_marked(self._tty_path if on else None, self._keys.restore)

    def _watch_modes(self, *, changing: int = 0) -> None:
        """Tell the watchdog the modes the terminal is left in now, when they are not the
        ones it was found in: after a ``kill -9`` it puts back line mode, echo, the signal
        keys and ``IUTF8`` (with paste marks or without: ``TERM=dumb`` too). ``changing``:
        said before those local-mode bits change (and the end-of-input key is turned off
        for a moment: ``line_mode_off``), whatever the modes are now; said again after."""
        fd = self.read_fd
        try:
            now = termios.tcgetattr(fd)
        except (OSError, termios.error):
            return
        found = self._modes
        bits = termios.ICANON | termios.ECHO | termios.ISIG
        same = found is None or (not changing and (
            (now[0] ^ found[0]) & _IUTF8 == 0 and (now[3] ^ found[3]) & bits == 0 and all(
                now[6][i] == found[6][i] for i in (termios.VEOL, termios.VEOL2))))
        if same:
            if self._watched:
                self._watched = False
                watchdog.modes_left(None)
            return
        if self._tty_path is None:
            self._tty_path = tty_name(fd)
        if self._tty_path:
            self._watched = True
            watchdog.modes_left(self._tty_path, found, now, _IUTF8, bits, changing)

    def reshow(self) -> bool:
        """Show the prompt of the read in progress again (after Ctrl-Z and ``fg`` the shell's
        lines stand under it); False when nothing is being read, or toolhost was resumed in
        the background."""
        if self._scope is None or not self._prompt:
            return False
        if not foreground(self.read_fd):
            # resumed in the background (`bg`): the terminal is the shell's (writing now put
            # stray prompts and ``ESC[?2004h`` under the shell's). ``fg`` of a running job
            # sends no SIGCONT: the read looks for the terminal coming back (``_read_line``)
            self._resume_pending = True
            if self._waiting is not None:
                self._waiting.cancel()  # the wait in progress: polled from now on
            return False
        self._resume_pending = False
        if self._utf8:
            _set_utf8(self.read_fd, True)
        if self._bracketing:
            self._mark_pastes(True)
        self.write("\n" + self._prompt.lstrip("\n").rsplit("\n", 1)[-1])
        if self._answer_flags is not None:  # the answer edited so far, read on as it was
            self._watch_modes(changing=self._answer_flags)  # first: a kill -9 in its midst
            self._ahead += line_mode_off(self.read_fd, self._answer_flags, self._answer_ctl[3])
            if self._ahead and self._waiting is not None:
                self._waiting.cancel()  # the answer's read waits for the terminal: keys came
            if self._edit is not None:
                self.write(self._edit.text + self._edit.back)
        self._watch_modes()
        return True

    def _utf8_input(self, on: bool) -> None:
        """What is typed is UTF-8 (``IUTF8``) while a line is read, then as it was: the
        kernel's Backspace and Ctrl-W at the ``> `` prompt erase a whole character, not the
        last byte of 日 (the turn then held U+FFFD where the person saw nothing)."""
        if on and not self._utf8 and _IUTF8:
            with contextlib.suppress(OSError, termios.error):
                if foreground(self.read_fd) and \
                        not termios.tcgetattr(self.read_fd)[0] & _IUTF8:
                    self._utf8 = _set_utf8(self.read_fd, True)
        elif not on and self._utf8:
            self._utf8 = False
            _set_utf8(self.read_fd, False)

    async def _readable(self) -> bool:
        """Wait until the terminal can be read; False (at once) when it came back to the
        foreground after a resume in the background (the prompt shown again)."""
        if not self._resume_pending:
            with anyio.CancelScope() as self._waiting:
                await anyio.wait_readable(self.read_fd)
            self._waiting = None
            return not self._resume_pending and not (self._ahead and self._edit is not None)
        with anyio.move_on_after(0.25):
            await anyio.wait_readable(self.read_fd)
            return True  # a read in the background stops toolhost (SIGTTIN); fg: SIGCONT
        if self._resume_pending and foreground(self.read_fd):  # not shown by SIGCONT yet
            self.reshow()
        return False

    async def _read_chunk(self, size: int) -> bytes | None:
        """What the terminal has now (up to ``size`` bytes; ``b""``: the input ended or the
        terminal hung up), or None when nothing could be read yet (read again)."""
        if not await self._readable():
            return None
        try:
            data = os.read(self.read_fd, size)
        except BlockingIOError:
            return None
        except OSError as exc:  # EIO: the terminal hung up
            if exc.errno not in (errno.EIO, errno.ENXIO, errno.EBADF):
                raise
            self._hang_up()
            return b""
        if not data and hung_up(self.read_fd):  # macOS and the BSDs: end of input and POLLHUP
            self._hang_up()
        return data

    def _hang_up(self) -> None:
        if not self.hung_up:
            self.hung_up = True
            if self.on_hangup is not None:
                self.on_hangup()

    async def _read_line(self) -> str | None:
        data = bytearray()
        cut = 0
        self._cut = False
        self._key = 0
        whole_lines = canonical(self.read_fd)
        while True:
            chunk = await self._read_chunk(4096)
            if chunk is None:
                continue
            if not chunk:  # Ctrl-D on an empty line: end of input
                # the terminal echoed no newline: what is shown next (the decision of a
                # question left this way, the shell's prompt) starts a line of its own
                self.write("\n")
                if not data:
                    return None
                break
            room = MAX_LINE - len(data)
            data += chunk[:room]
            cut += max(0, len(chunk) - room)
            key = self._keys.keys.get(chunk[-1:], 0)
            if chunk.endswith(b"\n") or (key and key != signal.SIGQUIT) or \
                    (self._keys.escape and chunk.endswith(ESC)):
                # a canonical read returns one line whole: at the limit, the kernel cut it
                self._cut = whole_lines and len(chunk) > CANON_LIMIT
                self._key = 0 if chunk.endswith(b"\n") else key
                break
        first, newline, rest = bytes(data).partition(b"\n")
        if newline and rest:  # lines a paste's count merged into one read (ttyfd)
            self._cut = False
            self.write(f"(ignored {len(rest)} characters that came with the answer to a "
                       "question: they are not sent)\n")
        line = first.decode("utf-8", errors="replace")
        if cut:
            self.write(f"(the line was cut to {MAX_LINE} bytes; {cut} more were dropped)\n")
        return line.rstrip("\r")


# termios names it from python 3.13 on; the same bit on Linux and macOS, none elsewhere
_IUTF8 = getattr(termios, "IUTF8", 0x4000 if sys.platform.startswith(("linux", "darwin")) else 0)


def _set_utf8(fd: int, on: bool) -> bool:
    """Turn ``IUTF8`` on or off on the terminal ``fd`` (only from the foreground)."""
    with contextlib.suppress(OSError, termios.error):
        if foreground(fd):
            modes = termios.tcgetattr(fd)
            modes[0] = modes[0] | _IUTF8 if on else modes[0] & ~_IUTF8
            termios.tcsetattr(fd, termios.TCSANOW, modes)
            return True
    return False
