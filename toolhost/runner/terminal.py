"""The person's terminal, with one reader at a time: the turn prompt or a permission question.

Everything typed goes through ``Terminal.readline``, which holds a lock while it reads, so a
question asked during a turn gets every key until it is answered, and the ``> `` prompt for
the next turn is shown (and read) only when the turn has ended. Reads happen on the event
loop (``anyio.wait_readable``), never in a blocked thread, so a read can be cancelled: Ctrl-C
at a question (``cancel_read``) abandons it for good instead of leaving a thread that swallows
the next line typed.

The terminal stays in its normal (canonical) mode: the kernel's line discipline gives
Backspace, Ctrl-U and Ctrl-W, Ctrl-D ends the input, and Ctrl-C stays a real SIGINT that the
runner's one signal handler turns into "deny the question" or "interrupt the turn". (While
the turn prompt is read with paste marks on, Ctrl-C and Ctrl-Z arrive as keys and are sent
as signals here unless a paste carried them: ``toolhost.runner.signal_keys``.) There is
no history or cursor movement (see README, "Dependencies, and why", on prompt_toolkit).

The terminal is read through a descriptor of its own (the terminal opened again, non-blocking),
and while the session runs file descriptor 0 is ``/dev/null`` (``hide_stdin``): an in-process
python tool that reads stdin (``input()``, a library's prompt, a thread reading fd 0) gets end
of input, never the keys that answer a question or type the next turn, and cannot block the
event loop by taking the bytes it was woken for.
"""

from __future__ import annotations

import contextlib
import errno
import os
import signal
import sys
import termios
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

import anyio

from toolhost.backends import watchdog
from toolhost.permissions.ask import AskInterrupted
from toolhost.runner import paste as marks
from toolhost.runner.signal_keys import SignalKeys
from toolhost.runner.ttyfd import (
    canonical,
    drain,
    drop,
    foreground,
    hide_stdin,
    pending,
    pending_with_partial,
    release_terminal_before_exit,
    reopen,
    restore_stdin,
)

__all__ = ["ASKING_TAG", "MAX_LINE", "Terminal", "TerminalInterrupt", "hide_stdin",
           "release_terminal_before_exit", "restore_stdin"]

MAX_LINE = 64 * 1024  # a longer line is cut (said so): memory stays bounded
# The longest line a terminal in its normal (canonical) mode hands over: the kernel keeps
# 4,096 bytes of a line being typed on Linux (1,024 on macOS and the BSDs), newline
# included, and silently drops what is typed or pasted past that. A line that long lost its
# end: it is never sent as a turn (said so), and a question's answer that long is said cut.
CANON_LIMIT = 4095 if sys.platform.startswith("linux") else 1023
# Typed ahead this much, the terminal's input buffer was (about) full: a paste larger than it
# was still being written, and what follows is dropped while it keeps coming (``drain``)
OVERFLOW = CANON_LIMIT // 2
# The ``#N `` tag of the call a permission question in this task is about (set by the
# runner's gate around its ``can_use_tool``): shown in the question as on the call lines, so
# a person can tell which call is asked about when several are in flight.
ASKING_TAG: ContextVar[str] = ContextVar("asking_tag", default="")
_QUESTION_HEAD = "toolhost: permission needed for "


class TerminalInterrupt(AskInterrupted):
    """The read was abandoned: the person pressed Ctrl-C."""


class _TypedKey(Exception):
    """The person pressed a signal key (Ctrl-C, Ctrl-Z, Ctrl-\\) at the turn prompt, read as a
    key (``toolhost.runner.signal_keys``): what was typed is dropped, the signal sent."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class Terminal:
    """Read lines from the terminal on ``read_fd``; write prompts to ``write_fd``."""

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
        self.refuse_questions = False  # after Ctrl-C at one: the turn's other questions too
        self._with_answer = 0  # bytes of lines that came with a question's answer (a paste)
        self._cut = False  # the last line read reached CANON_LIMIT: the terminal cut it
        # bracketed paste at the turn prompt (``toolhost.runner.paste``): a paste is one turn
        self.brackets = (self._typed and marks.wanted(write_fd)) if paste is None else paste
        self._bracketing = False  # the terminal marks pastes now (the turn prompt is read)
        self._tty_path: str | None = None  # the terminal's name, for the watchdog
        # Ctrl-C/Ctrl-Z/Ctrl-\ are keys while the turn prompt is read (marks on): a paste
        # carrying one stays text (``toolhost.runner.signal_keys``)
        self._keys = SignalKeys(read_fd)
        self._key = 0  # the signal of the key that ended the last line read (0: none)
        self._resume_pending = False  # resumed in the background: reshow once in front
        self._waiting: anyio.CancelScope | None = None  # the read's wait for input

    @classmethod
    def open(cls, stderr: int = 2) -> Terminal | None:
        """stdin when it is a terminal (turns and questions; prompts to ``/dev/tty``: stdout
        may carry JSON), else the controlling terminal for questions only; None without any
        terminal. With stdin a terminal, fd 0 is ``/dev/null`` until ``close`` (see the
        module docstring). ``stderr``: where prompts go when ``/dev/tty`` cannot be opened
        (a duplicate of fd 2 when fd 2 itself is a pipe toolhost reads: ``inert_fds``)."""
        try:
            if sys.stdin is not None and os.isatty(0):
                read = reopen(0)
                try:
                    out = os.open("/dev/tty", os.O_WRONLY | os.O_NOCTTY)
                except OSError:
                    out = -1
                owned = (read,) if out < 0 else (read, out)
                return cls(read, stderr if out < 0 else out, owned=owned, typed=True,
                           stdin=hide_stdin())
            fd = os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError:
            return None
        return cls(fd, fd, owned=(fd,))

    @property
    def reads_stdin(self) -> bool:
        """Whether turns are typed here too (else they come from piped stdin)."""
        return self._typed

    def close(self) -> None:
        """Put back the terminal's modes as they were at open (an in-process tool may have
        turned off echo or set raw mode through fd 1 or 2), close what was opened, and put
        the terminal back on fd 0. Lines that came with the last answer and were never read
        are dropped first: after ``-p`` the shell would read them as commands."""
        self.suspend()
        if self._with_answer and foreground(self.read_fd):  # a read in the background stops
            self._drop_with_answer("nor left for the shell")
        elif self._withdrawn and foreground(self.read_fd):  # typed for a question now gone
            dropped = self.discard_typeahead()
            if dropped:
                self.write(f"(ignored {dropped} characters typed after the question was "
                           "withdrawn: they are not left for the shell)\n")
            self._withdrawn = False
        if self._modes is not None:
            with contextlib.suppress(OSError, termios.error):
                # only in the foreground: in the background (`&`) the modes are the shell's
                # now, and setting them would stop this process (SIGTTOU) at its exit
                if foreground(self.read_fd) and \
                        termios.tcgetattr(self.read_fd) != self._modes:
                    termios.tcsetattr(self.read_fd, termios.TCSADRAIN, self._modes)
            self._modes = None
        for fd in self._owned:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._owned = ()
        if self._stdin is not None:
            restore_stdin(self._stdin)
            self._stdin = None

    def _drop_with_answer(self, more: str = "") -> None:
        overflow = self._overflowed()
        dropped = drop(self.read_fd, self._with_answer)
        if overflow:  # a paste larger than the terminal's buffer: the rest of it came
            dropped += drain(self.read_fd)  # later, and is no turn either
        self._with_answer = 0
        if dropped:
            self.write(f"(ignored {dropped} characters that came with the answer to a "
                       f"question: they are not sent{', ' + more if more else ''})\n")

    def write(self, text: str) -> None:
        """Write to the terminal; a terminal that went away (hang-up) is not an error."""
        data = text.encode("utf-8", errors="replace")
        with contextlib.suppress(OSError):
            while data:
                data = data[os.write(self.write_fd, data):]

    def cancel_read(self) -> bool:
        """Abandon the read in progress (it raises ``TerminalInterrupt``); False if none."""
        if self._scope is None:
            return False
        self._interrupted = True
        self._scope.cancel()
        return True

    def suspend(self) -> None:
        """Stop marking pastes (before Ctrl-Z stops toolhost, and at close): the shell's
        terminal is left as it was. ``reshow`` turns it on again after ``fg``."""
        if self._bracketing:
            self._mark_pastes(False)

    def _mark_pastes(self, on: bool) -> None:
        # the watchdog hears of it too: it turns the marks off (and the signal keys back on)
        # if toolhost is killed outright
        if on and foreground(self.read_fd):
            self._keys.off()
        elif not on:
            self._keys.on()
        self.write(marks.ON if on else marks.OFF)
        if on and self._tty_path is None:
            try:
                self._tty_path = os.ttyname(self.read_fd)
            except OSError:
                self._tty_path = ""
        if self._tty_path:
            watchdog.pastes_marked(self._tty_path if on else None, self._keys.restore)

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
        if self._bracketing:
            self._mark_pastes(True)
        self.write("\n" + self._prompt.lstrip("\n").rsplit("\n", 1)[-1])
        return True

    def discard_typeahead(self) -> int:
        """Drop what was typed before now (so it cannot answer a question); how many bytes
        (a line not finished yet included: a turn being typed when a question came)."""
        overflow = self._overflowed()
        typed = pending_with_partial(self.read_fd)
        with contextlib.suppress(OSError, termios.error):
            termios.tcflush(self.read_fd, termios.TCIFLUSH)
        if overflow or typed >= OVERFLOW:
            # the buffer was full: a paste larger than it is still being written, and its
            # next line must not answer this question (nor be a turn)
            typed += drain(self.read_fd)
        return typed

    def _overflowed(self) -> bool:
        """Whether the paste that came with the last answer is larger than the terminal's
        buffer (the buffer is full now: the terminal is still writing the rest)."""
        return self._with_answer > 0 and pending_with_partial(self.read_fd) >= OVERFLOW

    async def _settle(self) -> int:
        """Bytes typed behind a question's answer once they stop coming: a paste a terminal
        hands over in pieces is counted whole (up to the buffer's size), not as the part
        that had arrived when its first line was read. Only after an answer that came with
        more (a person's Enter comes alone): no wait for a typed answer."""
        count = pending_with_partial(self.read_fd)
        still = 0.0
        waited = 0.0
        while count and count < OVERFLOW and still < 0.1 and waited < 1.0:
            await anyio.sleep(0.02)
            waited += 0.02
            now = pending_with_partial(self.read_fd)
            still = still + 0.02 if now == count else 0.0
            count = now
        return count

    async def readline(self, prompt: str, *, question: bool = False,
                       keep_typeahead: bool = False) -> str | None:
        """Show ``prompt`` and read one line (without its newline); None at end of input
        (Ctrl-D, or the terminal hung up). ``question``: a permission question; keys typed
        before it are dropped (nothing typed ahead answers it) unless ``keep_typeahead``.
        Raises ``TerminalInterrupt`` after ``cancel_read``.
        """
        async with self._lock:
            if question and self.refuse_questions:
                raise TerminalInterrupt
            self._interrupted = False
            self.question = question
            tag = ASKING_TAG.get() if question else ""
            if tag and _QUESTION_HEAD in prompt[:len(_QUESTION_HEAD) + 2]:
                prompt = prompt.replace(_QUESTION_HEAD, _QUESTION_HEAD + tag, 1)
            try:
                if question and not keep_typeahead:
                    dropped = self.discard_typeahead()
                    if dropped:
                        self.write(f"(ignored {dropped} characters typed before the "
                                   "question)\n")
                elif self._withdrawn:  # keys meant for a withdrawn question are no turn
                    dropped = self.discard_typeahead()
                    if dropped:
                        self.write(f"(ignored {dropped} characters typed after the question "
                                   "was withdrawn)\n")
                elif self._with_answer and not question:
                    # lines pasted with an answer ("y\nrm -rf ~\n"): never the next turn
                    # (lines typed after them, a turn typed ahead, are kept)
                    self._drop_with_answer()
                self._withdrawn = False
                self._with_answer = 0
                with anyio.CancelScope() as scope:
                    self._scope = scope
                    if self.brackets and not question:
                        self._bracketing = True
                        self._mark_pastes(True)
                    return await self._read_whole_line(prompt, question)
                raise TerminalInterrupt
            except anyio.get_cancelled_exc_class():
                # Not Ctrl-C (that raises TerminalInterrupt): the call was cancelled from
                # outside (the CLI withdrew it, or its own timeout). Say so, and drop what is
                # typed for it before the next prompt, so an answer never becomes a turn.
                if question and not self.ending:
                    self._withdrawn = True
                    why = ("the Claude CLI ended" if self.cli_gone is not None
                           and self.cli_gone() else "the Claude CLI cancelled this call")
                    self.write(f"\n(the question was withdrawn: {why}; nothing typed for it "
                               "is sent)\n")
                elif not question and not self.ending and self._prompt:
                    self.write("\n")  # the turn prompt, ended under it: what is said next
                    # (the CLI gone, see run_host) starts a line of its own
                raise
            finally:
                if self._bracketing:
                    self._mark_pastes(False)
                    self._bracketing = False
                self._scope = None
                self.question = False
                self._prompt = ""
                self._resume_pending = False
                if question:
                    for release in self.after_question:
                        release()

    async def _read_whole_line(self, prompt: str, question: bool) -> str | None:
        # A turn the terminal cut is not sent: the prompt is shown again. An answer it cut
        # is said so and returned (it cannot be "y"; a reason keeps its start).
        show = True
        while True:
            if show:
                self.write(prompt)
                self._prompt = prompt
            show = True
            line = await self._read_line()
            if question and line is not None:
                self._with_answer = await self._settle()
            elif self._bracketing and line is not None:
                try:
                    line = await self._read_paste(line) if marks.START in line \
                        else marks.strip_marks(self._typed_line(line))
                except _TypedKey as key:
                    # as the kernel would have: the line dropped, the signal sent (Ctrl-C
                    # ends the session, Ctrl-Z stops it); the read goes on where it was
                    self._cut = False
                    quits = key.signum == signal.SIGQUIT  # its default action: gone at once
                    if quits:
                        self.suspend()  # the marks off and the keys back first
                    self._keys.send(key.signum)
                    if quits:
                        self._mark_pastes(True)  # it was caught or ignored: read on
                    show = False
                    continue
                if line is None:
                    continue  # a paste refused (said so): the prompt again
            if not self._cut:
                return line
            if question:
                self.write(f"(the answer reached the terminal's limit of {CANON_LIMIT:,} "
                           "characters; its end was lost)\n")
                return line
            dropped = self.discard_typeahead()
            more = f"; {dropped} more characters after it were dropped too" if dropped else ""
            self.write(f"(the line reached the terminal's limit of {CANON_LIMIT:,} characters, "
                       f"so its end was lost: it was not sent{more}. For a longer prompt use "
                       "-p \"$(cat FILE)\", or pipe the turns in)\n")

    async def _read_paste(self, first: str) -> str | None:
        """The turn a paste makes (its first line read), or None when it is refused (said
        so): over ``PASTE_MAX``, a line of it cut by the terminal, or no end before Ctrl-D."""
        first, keys = self._keys.strip(first)
        paste = marks.Paste(first, joined=bool(self._key))
        paste.cut, paste.keys = self._cut, keys
        self._person_key()
        # a line the terminal cut may have lost the end mark with its end: the paste stops
        # there, and the rest of it, already in the terminal's queue, is dropped below
        while not paste.cut:
            if paste.done:
                # an end mark with more of the paste behind it (come with it, before any key
                # the person presses) was carried in the pasted text: the paste goes on, so
                # a newline after it never submits a turn of its own
                if not self._more_behind():
                    break
                paste.carried += 1
                paste.done = False
            elif paste.carried and not self._more_behind():
                break  # what came with it is read: never wait for an end that may not come
            line = await self._read_line()
            if line is None and self._more_behind():
                # a Ctrl-D character in the pasted text (more of the paste behind it), not
                # the person's: it ends nothing (dropped), or the rest would be typed lines
                paste.ctrl_d += 1
                continue
            if line is None:
                self.write(f"(a paste began but its end never came before Ctrl-D: "
                           f"{paste.lines_said} of it not sent)\n")
                return None
            line, keys = self._keys.strip(line)
            paste.add(line, cut=self._cut, joined=bool(self._key))
            paste.keys += keys
            self._person_key()
        self._cut = False
        if paste.over or paste.cut:
            dropped = 0 if paste.done else self.discard_typeahead()
            more = f"; {dropped:,} more characters of it were dropped too" if dropped else ""
            why = (f"had a line over the terminal's limit of {CANON_LIMIT:,} characters, "
                   "whose end was lost" if paste.cut else
                   f"is over the limit of {paste.limit:,} bytes")
            self.write(f"(a paste of {paste.lines_said} ({paste.size:,} bytes) {why}: it "
                       f"was not sent{more}. For a longer prompt use -p \"$(cat FILE)\", or "
                       "pipe the turns in)\n")
            return None
        if paste.carried or paste.ctrl_d or paste.keys:
            carried = [f"{n:,} {what}{'' if n == 1 else 's'}" for n, what in (
                (paste.carried, "paste end mark"), (paste.ctrl_d, "Ctrl-D character"),
                (paste.keys, "Ctrl-C, Ctrl-Z or Ctrl-\\ character")) if n]
            self.write(f"(a paste of {paste.lines_said}: one turn; it carried "
                       f"{' and '.join(carried)} of its own, read as part of the text)\n")
        elif paste.count > 1:
            self.write(f"(a paste of {paste.count:,} lines: one turn)\n")
        return paste.text

    def _typed_line(self, line: str) -> str:
        """``line`` typed at the prompt (no paste in it): raises ``_TypedKey`` when a signal
        key ended it, or when it holds the quit key (which cannot end a line)."""
        signum = self._key or self._keys.held(line)
        if signum:
            raise _TypedKey(signum)
        return line

    def _person_key(self) -> None:
        """A signal key ended the piece of a paste just read, with nothing behind it: the
        person pressed it (after the paste's end mark, or while its end was awaited), not
        the pasted text: raises ``_TypedKey``. With more behind, it came with the paste."""
        if self._key and not self._more_behind():
            raise _TypedKey(self._key)

    def _more_behind(self) -> bool:
        """Whether bytes are waiting now behind the line just read (a line not finished
        yet counted too): they came with it (a terminal writes a paste at once; a key the
        person presses comes far later). No wait: a turn typed ahead just after a paste is
        not taken into it. Whole lines are counted first: counting a line not finished yet
        makes the kernel hand over everything pending as one read
        (``ttyfd.pending_with_partial``)."""
        return pending(self.read_fd) > 0 or pending_with_partial(self.read_fd) > 0

    async def _readable(self) -> bool:
        """Wait until the terminal can be read; False (at once) when it came back to the
        foreground after a resume in the background (the prompt shown again)."""
        if not self._resume_pending:
            with anyio.CancelScope() as self._waiting:
                await anyio.wait_readable(self.read_fd)
            self._waiting = None
            return not self._resume_pending
        with anyio.move_on_after(0.25):
            await anyio.wait_readable(self.read_fd)
            return True  # a read in the background stops toolhost (SIGTTIN); fg: SIGCONT
        if self._resume_pending and foreground(self.read_fd):  # not shown by SIGCONT yet
            self.reshow()
        return False

    async def _read_line(self) -> str | None:
        data = bytearray()
        cut = 0
        self._cut = False
        self._key = 0
        whole_lines = canonical(self.read_fd)
        while True:
            if not await self._readable():
                continue
            try:
                chunk = os.read(self.read_fd, 4096)
            except BlockingIOError:
                continue
            except OSError as exc:  # EIO: the terminal hung up
                if exc.errno not in (errno.EIO, errno.ENXIO, errno.EBADF):
                    raise
                chunk = b""
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
            if chunk.endswith(b"\n") or (key and key != signal.SIGQUIT):
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
