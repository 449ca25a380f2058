"""Signals during a ``toolhost run`` session: the one owner of SIGINT, SIGTERM, SIGHUP, SIGCONT
and (with a terminal) SIGTSTP. A first Ctrl-C interrupts the turn (or denies the open question
and interrupts), a second one, SIGTERM or SIGHUP end the session: every open request answered,
the CLI stopped. Ctrl-Z gives the terminal back in its modes first; ``fg`` sets them again."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from typing import TYPE_CHECKING

import anyio
import anyio.abc

from toolhost.permissions.decision import Decision
from toolhost.permissions.gate import PermissionGate
from toolhost.protocol.open_requests import StoppedRequest
from toolhost.runner.owned_signals import signals_owned
from toolhost.runner.process import CliSession
from toolhost.runner.terminal import Terminal
from toolhost.runner.ttyheld import job_control

if TYPE_CHECKING:
    from toolhost.runner.run import RunReport

__all__ = ["Signals", "say"]

log = logging.getLogger("toolhost.runner")


def say(text: str) -> None:
    """A note on stderr, on a line of its own."""
    with contextlib.suppress(OSError):
        print(f"\ntoolhost: {text}", file=sys.stderr, flush=True)


class Signals:
    """The one owner of SIGINT, SIGTERM and SIGHUP during a session (see ``run_host``);
    SIGCONT (back from Ctrl-Z) shows the prompt being read again."""

    def __init__(self, report: RunReport, terminal: Terminal | None,
                 gate: PermissionGate | None = None, *,
                 interrupt_grace: float | None = None) -> None:
        self.report = report
        self.interrupt_grace = interrupt_grace  # see ``run_host``
        self.turns = 0  # turns started: tells an interrupted turn from a later one
        self.terminal = terminal
        self.gate = gate  # told why its open questions end unanswered
        self.scope = anyio.CancelScope()  # the whole session: cancelled to end it
        self.session: CliSession | None = None
        self.turn = False
        self.interrupting = False

    def attach(self, session: CliSession) -> None:
        """The CLI runs (``initialize`` may not be answered yet): a signal from now on, or
        one that already came, stops it with the short grace."""
        self.session = session
        session.on_gone = self._cli_gone
        if self.report.interrupted:
            session.abort()

    def _cli_gone(self, how: str) -> None:
        """The CLI's output ended: a question still open ends unanswered because the CLI
        went (its audit line says how), unless a stop already said why. Every request still
        open is answered as a stop answers it (read by a CLI that only closed its output),
        so a tool call cut short has its audit line saying so, as at a signal."""
        if self.gate is None or self.gate.ending is not None:
            return
        self.gate.ending = how
        if self.session is not None:
            self.session.control.stop(how, self.gate.unanswered, on_stopped=self._stopped)

    def turn_started(self) -> None:
        self.turn, self.interrupting = True, False
        self.turns += 1
        if self.terminal is not None:
            self.terminal.refuse_questions = False

    async def run(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        wanted = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGCONT]
        if self.terminal is not None:
            # Ctrl-Z: the terminal's modes back first (paste marks, and, marks or not, the
            # line mode and echo a question's answer turned off, IUTF8), set again at fg
            wanted.append(signal.SIGTSTP)
        with signals_owned(), anyio.open_signal_receiver(*wanted) as received:
            task_status.started()
            async with anyio.create_task_group() as tg:
                async for signum in received:
                    if signum == signal.SIGCONT:  # back from Ctrl-Z: the open question again
                        if self.terminal is not None:
                            self.terminal.reshow()
                        continue
                    if signum == signal.SIGTSTP:
                        # as the default action would: stop, unless no shell could resume
                        # us (an orphaned group: the kernel discards Ctrl-Z there)
                        if job_control():
                            if self.terminal is not None:
                                self.terminal.suspend()
                            os.kill(os.getpid(), signal.SIGSTOP)
                        continue
                    if signum == signal.SIGINT and self._interrupt(tg):
                        continue
                    self._end(signum)

    def _interrupt(self, tg: anyio.abc.TaskGroup) -> bool:
        """A Ctrl-C that interrupts (a question, a turn); False when it should end the run."""
        terminal, session = self.terminal, self.session
        at_question = terminal is not None and terminal.question
        if not at_question and (not self.turn or self.interrupting):
            return False
        self.report.turn_interrupted = True
        if session is not None and not self.interrupting:
            self.interrupting = True
            # started before the question's read is cancelled: the CLI reads the interrupt
            # before the question's deny, and does not take the deny as the turn going on
            # (it asked the model again, within the turn the person interrupted)
            tg.start_soon(session.interrupt)
            if self.interrupt_grace is not None:
                tg.start_soon(self._end_unless_turn_ends, self.interrupt_grace, self.turns)
        if at_question and terminal is not None and terminal.cancel_read():
            terminal.refuse_questions = True  # the rest of this turn's questions: denied
            say("Ctrl-C at the question: the call is denied and the turn interrupted")
        else:
            say("interrupting the turn (Ctrl-C again to quit)")
        return True

    async def _end_unless_turn_ends(self, grace: float, turn: int) -> None:
        """The bounded wait after an interrupt: a turn still running ``grace`` seconds
        later (a CLI that ignores ``interrupt``) ends the session as a second Ctrl-C."""
        await anyio.sleep(grace)
        if self.turn and self.turns == turn and not self.report.interrupted:
            say(f"the Claude CLI did not end the turn {grace:g} s after the interrupt: "
                 "stopping it")
            self._end(signal.SIGINT)

    def hung_up(self) -> None:
        """The terminal closed (a read saw it hang up): end as at SIGHUP."""
        if self.terminal is not None:
            self.terminal.ending = True
        self._end(signal.SIGHUP)

    def _end(self, signum: int) -> None:
        if self.report.interrupted:
            return  # already ending
        if self.terminal is not None:
            self.terminal.ending = True  # its open question ends with the session: no news
        self.report.interrupted = True
        self.report.signal = signum
        name = signal.Signals(signum).name
        if signum != signal.SIGINT:
            say(f"{name}: stopping the session")
        why = f"toolhost is stopping ({name if signum != signal.SIGINT else 'Ctrl-C'})"
        if self.gate is not None:
            self.gate.ending = why
        if self.session is not None:
            # now, before anything is cancelled and the CLI's stdin closed: every request
            # still open gets its answer (the CLI is never left waiting): a question a deny
            # saying what its audit line says, a tool call an error result saying why
            self.session.control.stop(why, self.gate.unanswered if self.gate else None,
                                      on_stopped=self._stopped)
        if self.session is not None:
            self.session.abort()
        self.scope.cancel()

    def _stopped(self, stopped: StoppedRequest) -> None:
        """A request the stop answered: a tool call's audit line (its allow has one already),
        a question's deny when nothing asked it (the CLI wrote it, the stop came before it
        was served). One still being decided has its line from the gate."""
        audit = self.gate.audit if self.gate is not None else None
        if stopped.kind == "other" or stopped.started is False or audit is None:
            return
        try:
            if stopped.kind == "permission":
                audit.record(stopped.tool, stopped.arguments, Decision(
                    "deny", stopped.message, answered_by="nobody (question ended)"),
                    tool_use_id=stopped.tool_use_id)
            else:
                audit.record_stopped(stopped.tool, stopped.arguments, stopped.message,
                                     tool_use_id=stopped.tool_use_id)
        except OSError as exc:  # the run is ending: said, never raised into the stop
            log.error("cannot write the audit log %s: %s", audit.path, exc)
