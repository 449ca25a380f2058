"""Resolving "ask": a person at the terminal, or a fixed answer when nobody can be asked."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

import anyio
import anyio.to_thread

from toolhost.permissions.ask_shown import WHOLE, shown_input, shown_name
from toolhost.permissions.decision import Decision
from toolhost.permissions.redact import redact_value
from toolhost.visible import visible

__all__ = ["AskInterrupted", "FixedAsker", "LineReader", "TerminalAsker", "no_terminal_asker",
           "parse_answer", "terminal_available"]

# The answers, exactly (case and blanks around them aside). Anything else denies: a word that
# merely starts like one ("abort", "yikes, no!", "any risk?") never allows.
_ANSWERS = {"y": "y", "yes": "y", "a": "a", "always": "a", "n": "n", "no": "n", "s": "s",
            "show": "s"}


def parse_answer(line: str) -> str:
    """``y``, ``a``, ``n`` or ``s`` for an answer typed at the question; "" for anything else
    (a deny)."""
    return _ANSWERS.get(line.strip().lower(), "")


class AskInterrupted(Exception):
    """The person pressed Ctrl-C at the question: the call is denied. ``asked`` False: the
    question was never shown (a Ctrl-C at an earlier one of the turn denies it too)."""

    asked = True


class TerminalHungUp(Exception):
    """The terminal closed (hung up) while the question was open: nobody can answer it (not
    a person's deny: ``PermissionGate.check`` records it as nobody's)."""


class LineReader(Protocol):
    """The one reader of the terminal that turn prompts also go through
    (``toolhost.runner.terminal.Terminal``)."""

    async def readline(self, prompt: str, *, question: bool = False,
                       keep_typeahead: bool = False) -> str | None: ...


def terminal_available(path: str = "/dev/tty") -> bool:
    """Whether this process has a controlling terminal a person could answer on."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return False
    os.close(fd)
    return True


def _where(decision: Decision, redact: Callable[[str], str] = lambda s: s) -> str:
    if decision.rule is None:
        return "no rule matched; the default is ask"
    return visible(redact(f"rule {decision.rule!r} at {decision.origin}"))


class FixedAsker:
    """Answers every question the same way: ``--yes``/``ask_mode: allow``, or deny."""

    def __init__(self, behavior: Literal["allow", "deny"], *, answered_by: str,
                 message: str | None = None) -> None:
        self.behavior = behavior
        self.answered_by = answered_by
        self.message = message

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        if self.behavior == "allow":
            return Decision("allow", rule=decision.rule, origin=decision.origin,
                            answered_by=self.answered_by)
        message = self.message or (
            f"{tool_name} needs a person's approval ({_where(decision)}), and nobody can be "
            f"asked ({self.answered_by}), so the call was denied.")
        if decision.message:
            message += f" {decision.message}"
        return Decision("deny", message, rule=decision.rule, origin=decision.origin,
                        answered_by=self.answered_by)


def no_terminal_asker() -> FixedAsker:
    """Deny every "ask", saying that a person's approval was required and no terminal exists."""
    return FixedAsker("deny", answered_by="no-terminal")


class TerminalAsker:
    """Asks the person at the controlling terminal (``/dev/tty``, never stdin, which may carry
    the CLI's pipes). Answers (exactly; ``yes``, ``always``, ``no`` too): ``y`` allow once,
    ``a`` allow for this session, ``n`` deny (then an optional reason), ``s`` show a shortened
    input whole and ask again. End of input, an empty answer or anything else is a deny, at
    once (no reason asked for). Questions are asked one at a time; "allow for this session"
    remembers the tool (for Bash: the exact command with every field beside it, such as
    ``dangerouslyDisableSandbox``: never more than the person saw), and only for questions the
    default raised: a question an ask rule raises is asked every time (as in Claude Code, an
    ask rule beats an allow), so ``a`` there allows that call once.

    With ``reader`` set (``toolhost run`` sets it to its terminal), questions are read through
    it: they then own the terminal while they are open, and Ctrl-C at one denies the call.
    """

    def __init__(self, tty_path: str = "/dev/tty",
                 redact: Callable[[str], str] = lambda s: s,
                 reader: LineReader | None = None) -> None:
        self.tty_path = tty_path
        self.redact = redact
        self.reader = reader
        self.session_allowed: set[str] = set()
        self._lock: anyio.Lock | None = None

    @staticmethod
    def session_key(tool_name: str, tool_input: Mapping[str, Any]) -> str:
        """What an "a" answer is remembered by: the tool; for Bash the whole input (canonical
        JSON: the command and every field beside it, such as ``dangerouslyDisableSandbox`` or
        ``run_in_background``; key order does not matter, any other difference does)."""
        if tool_name != "Bash":
            return tool_name
        try:
            shown = json.dumps(tool_input, sort_keys=True, separators=(",", ":"))
        except (TypeError, ValueError):  # not JSON (keys of mixed types): never remembered
            shown = f"\x00{id(tool_input)}"
        return f"Bash\x00{shown}"

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        key = self.session_key(tool_name, tool_input)
        if self._lock is None:
            self._lock = anyio.Lock()
        # Only the default's questions are remembered: an ask rule (or a search near a Read
        # rule) exists to be asked every time.
        remembered = decision.rule is None
        async with self._lock:
            if remembered and key in self.session_allowed:
                return Decision("allow", rule=decision.rule, origin=decision.origin,
                                answered_by="person (this session)")
            if self.reader is not None:
                try:
                    answer, reason, typed = await self._ask_reader(self.reader, tool_name,
                                                                   tool_input, decision)
                except AskInterrupted as exc:
                    said = (f"A person pressed Ctrl-C when asked about {tool_name}."
                            if exc.asked else f"{tool_name} was not asked about: a person "
                            "pressed Ctrl-C at an earlier question of this turn.")
                    return Decision("deny", said, rule=decision.rule,
                                    origin=decision.origin, answered_by="person (Ctrl-C)")
            else:
                answer, reason, typed = await anyio.to_thread.run_sync(
                    self._prompt, tool_name, tool_input, decision, abandon_on_cancel=True)
        if answer in ("y", "a"):
            if answer == "a" and remembered:
                self.session_allowed.add(key)
            return Decision("allow", rule=decision.rule, origin=decision.origin,
                            answered_by="person")
        if answer == "n" or not typed:
            message = f"A person denied {tool_name}" + (f": {reason}" if reason else ".")
        else:
            message = f"A person denied {tool_name} (the answer was not y, a or n)."
        return Decision("deny", message, rule=decision.rule, origin=decision.origin,
                        answered_by="person")

    def _question(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision, *, whole: bool = False) -> str:
        # Every character shown as it is, never acting on the terminal (``visible``): the name
        # is the exact name decided on, and bidi controls in values cannot reorder them.
        r = self.redact  # the name and the rule too: a secret may be anywhere in them
        # bounded, measured as shown (toolhost.permissions.ask_shown)
        name = shown_name(r(tool_name), whole=whole)
        shown = shown_input(redact_value(tool_input, r), whole=whole)
        text = (f"\ntoolhost: permission needed for {name.text} "
                f"({_where(decision, r)})\n{shown.text}\n")
        if decision.message:
            text += f"{visible(r(decision.message), lines=True)}\n"
        choices = "[y] once, [a] for this session, [n] deny" if decision.rule is None else \
            "[y] once, [n] deny (an ask rule asks every time)"
        if (name.cut or shown.cut) and not whole:
            choices += ", [s] show it all"
        elif name.cut or shown.cut:
            text += (f"(too large to show whole: past {WHOLE:,} characters of it, start and "
                     "end shown)\n")
        return f"{text}Allow? {choices}: "

    async def _ask_reader(self, reader: LineReader, tool_name: str,
                          tool_input: Mapping[str, Any],
                          decision: Decision) -> tuple[str, str, bool]:
        holding = getattr(reader, "holding", None)  # (``Terminal.holding``)
        if holding is None:
            return await self._read_answer(reader, tool_name, tool_input, decision)
        async with holding():  # the answer and its reason are read as one question
            return await self._read_answer(reader, tool_name, tool_input, decision)

    async def _read_answer(self, reader: LineReader, tool_name: str,
                           tool_input: Mapping[str, Any],
                           decision: Decision) -> tuple[str, str, bool]:
        question = self._question(tool_name, tool_input, decision)
        while True:
            line = await reader.readline(question, question=True)
            if line is None:  # Ctrl-D: a deny, and no reason to ask for
                return "", "", False
            answer = parse_answer(line)
            if answer != "s":
                break
            question = self._question(tool_name, tool_input, decision, whole=True)
        reason = ""
        if answer == "n":  # only "n" asks for a reason: anything else denies at once
            reason = (await reader.readline("Reason for the model (optional): ",
                                            question=True, keep_typeahead=True) or "").strip()
        return answer, reason, bool(line.strip())

    def _prompt(self, tool_name: str, tool_input: Mapping[str, Any],
                decision: Decision) -> tuple[str, str, bool]:
        fd = os.open(self.tty_path, os.O_RDWR | os.O_NOCTTY)
        try:
            # nothing typed (or pasted) before the question answers it, as under `run`
            dropped = _drop_unread(fd)
            if dropped:
                _write(fd, f"(ignored {dropped} characters typed before the question)\n")
            _write(fd, self._question(tool_name, tool_input, decision))
            line = _readline(fd)
            answer = parse_answer(line)
            while answer == "s":  # as often as asked, as through the reader
                _write(fd, self._question(tool_name, tool_input, decision, whole=True))
                line = _readline(fd)
                answer = parse_answer(line)
            reason = ""
            if answer == "n":  # only "n" asks for a reason: anything else denies at once
                _write(fd, "Reason for the model (optional): ")
                reason = _readline(fd).strip()
            # lines pasted with the answer ("y\nrm -rf ~\n") are for nobody: left, the next
            # reader of the terminal (the shell, once the program ends) would run them
            _drop_unread(fd)
            return answer, reason, bool(line.strip())
        finally:
            os.close(fd)


def _drop_unread(fd: int) -> int:
    """Drop what the terminal on ``fd`` holds unread; how many bytes (0 if not a terminal)."""
    import fcntl
    import struct
    import termios

    try:
        if not os.isatty(fd):
            return 0
        held = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
        termios.tcflush(fd, termios.TCIFLUSH)
    except (OSError, termios.error):
        return 0
    return int(held)


def _write(fd: int, text: str) -> None:
    data = text.encode("utf-8", errors="replace")
    while data:
        data = data[os.write(fd, data):]


def _readline(fd: int) -> str:
    """One line from a terminal (no buffering past it); "" at end of input."""
    data = b""
    while b"\n" not in data and len(data) < 4096:
        chunk = os.read(fd, 1024)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0].decode("utf-8", errors="replace")
