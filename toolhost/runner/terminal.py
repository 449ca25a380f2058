"""The person's terminal, with one reader at a time: the turn prompt or a permission question.

Everything typed goes through ``Terminal.readline``, which holds a lock while it reads, so a
question asked during a turn gets every key until it is answered, and the ``> `` prompt for
the next turn is shown (and read) only when the turn has ended. Reads happen on the event
loop (``anyio.wait_readable``), never in a blocked thread, so a read can be cancelled: Ctrl-C
at a question (``cancel_read``) abandons it for good instead of leaving a thread that swallows
the next line typed.

The ``> `` prompt is read in the terminal's normal (canonical) mode: the kernel's line
discipline gives Backspace, Ctrl-U and Ctrl-W, Ctrl-D ends the input; there is no history or
cursor movement there (see README, "Dependencies, and why", on prompt_toolkit). A question's
answer is read key by key, line mode and echo off, and edited by ``line_edit`` (a cursor,
word moves). Either way Ctrl-C stays a real SIGINT that the runner's one signal handler
turns into "deny the question" or "interrupt the turn". (While the turn prompt is read with
paste marks on, Ctrl-C and Ctrl-Z arrive as keys and are sent as signals here unless a paste
carried them: ``toolhost.runner.signal_keys``.) Whatever toolhost changed is put back at
Ctrl-Z (and set again at ``fg``), at close, and by the watchdog after a ``kill -9``.

The terminal is read through a descriptor of its own (the terminal opened again, non-blocking),
and while the session runs file descriptor 0 is ``/dev/null`` (``hide_stdin``): an in-process
python tool that reads stdin (``input()``, a library's prompt, a thread reading fd 0) gets end
of input, never the keys that answer a question or type the next turn, and cannot block the
event loop by taking the bytes it was woken for.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import termios
from collections.abc import AsyncIterator
from contextvars import ContextVar

import anyio
import anyio.lowlevel

from toolhost.permissions.ask import AskInterrupted, TerminalHungUp
from toolhost.runner import paste as marks
from toolhost.runner.line_edit import without_keys
from toolhost.runner.spill_out import terminals_written
from toolhost.runner.terminal_input import CANON_LIMIT, MAX_LINE
from toolhost.runner.terminal_paste import PasteInput, _TypedKey
from toolhost.runner.ttyheld import (
    foreground,
    hide_stdin,
    release_terminal_before_exit,
    reopen,
    restore_stdin,
)

__all__ = ["ASKING_TAG", "CANON_LIMIT", "MAX_LINE", "Terminal", "TerminalInterrupt", "hide_stdin",
           "release_terminal_before_exit", "restore_stdin"]

# The ``#N `` tag of the call a permission question in this task is about (set by the
# runner's gate around its ``can_use_tool``): shown in the question as on the call lines, so
# a person can tell which call is asked about when several are in flight.
ASKING_TAG: ContextVar[str] = ContextVar("asking_tag", default="")
_QUESTION_HEAD = "toolhost: permission needed for "


class TerminalInterrupt(AskInterrupted):
    """The read was abandoned: the person pressed Ctrl-C."""


class Terminal(PasteInput):
    """Read lines from the terminal on ``read_fd``; write prompts to ``write_fd``."""

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

    def cancel_read(self) -> bool:
        """Abandon the read in progress (it raises ``TerminalInterrupt``); False if none."""
        if self._scope is None:
            return False
        self._interrupted = True
        self._scope.cancel()
        return True

    @contextlib.asynccontextmanager
    async def holding(self) -> AsyncIterator[None]:
        """The terminal read by this task alone until the block ends: a permission question's
        reads (the answer, "show it all", the reason asked after "n") are one, and the
        ``> `` prompt of a turn that ended meanwhile is not shown, nor read, between them
        (the next Enter typed was taken as an empty turn, the reason waited for another)."""
        me = anyio.get_current_task().id
        if self._holder == me:
            yield
            return
        async with self._lock:
            self._holder = me
            try:
                yield
            finally:
                self._holder = None

    async def readline(self, prompt: str, *, question: bool = False,
                       keep_typeahead: bool = False) -> str | None:
        """Show ``prompt`` and read one line (without its newline); None at end of input
        (Ctrl-D, or the terminal hung up). ``question``: a permission question; keys typed
        before it are dropped (nothing typed ahead answers it) unless ``keep_typeahead``.
        Raises ``TerminalInterrupt`` after ``cancel_read``.
        """
        async with self.holding():
            if question and self.refuse_questions:
                refused = TerminalInterrupt()
                refused.asked = False  # never shown: not "when asked about"
                raise refused
            if question and self.hung_up:
                await self._nobody_there()
            self._interrupted = False
            self.question = question
            tag = ASKING_TAG.get() if question else ""
            if tag and _QUESTION_HEAD in prompt[:len(_QUESTION_HEAD) + 2]:
                prompt = prompt.replace(_QUESTION_HEAD, _QUESTION_HEAD + tag, 1)
            try:
                await terminals_written()  # the transcript on its way first, not around it
                if question:  # every key edited here from the first (``line_edit``)
                    if self.brackets:  # a paste never answers it; first: its ESC line end
                        self._bracketing = True  # tells the watchdog the modes to put back
                        self._mark_pastes(True, keys=False)
                    self._answer_keys_on()
                else:
                    self._utf8_input(True)
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
                        self._mark_pastes(True, keys=True)
                    self._watch_modes()  # kill -9 now: the watchdog puts them back
                    line = await self._read_whole_line(prompt, question)
                    if line is None and question and self.hung_up:
                        await self._nobody_there()
                    return line
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
                if question and self._ahead:  # typed after the answer's end: came with it
                    self._with_answer = max(self._with_answer, len(self._ahead))
                self._answer_keys_off()
                self._utf8_input(False)
                if self._bracketing:
                    self._mark_pastes(False)
                    self._bracketing = False
                self._watch_modes()
                self._scope = None
                self.question = False
                self._prompt = ""
                self._resume_pending = False
                if question:
                    for release in self.after_question:
                        release()

    def _without_keys(self, line: str) -> str:
        # an arrow or Alt+key typed in a turn does nothing (said once): never sent as text
        line, keys = without_keys(line)
        if keys:
            self.write(f"(ignored {keys} key{'' if keys == 1 else 's'} in the line such as an "
                       "arrow key, Home or Alt+key: only Backspace, Ctrl-U and Ctrl-W edit a "
                       "line here)\n")
        return line

    async def _nobody_there(self) -> None:
        """A question on a terminal that hung up: no answer, and not a person's Ctrl-D.
        The stop ``on_hangup`` began (as at SIGHUP) has answered the call already: this
        question is cancelled with the rest (the gate records the stop's deny); without
        one, ``TerminalHungUp`` (a deny saying nobody answered: the terminal closed)."""
        await anyio.lowlevel.checkpoint()
        raise TerminalHungUp

    async def _read_whole_line(self, prompt: str, question: bool) -> str | None:
        # A turn the terminal cut is not sent: the prompt is shown again. An answer it cut
        # is said so and returned (it cannot be "y"; a reason keeps its start).
        show = True
        while True:
            if show:
                self.write(prompt)
                self._prompt = prompt
            show = True
            line = await (self._read_answer() if question else self._read_line())
            if question and line is not None and self._bracketing and marks.START in line:
                if await self._skip_paste(line) is None:
                    return None  # Ctrl-D before the paste's end: no answer
                continue  # dropped (said so): asked again
            if question and line is not None:
                self._with_answer = await self._settle()
            elif self._bracketing and line is not None:
                try:
                    line = await self._read_paste(line) if marks.START in line \
                        else self._without_keys(marks.strip_marks(self._typed_line(line)))
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

