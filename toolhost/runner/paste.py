"""Bracketed paste at the ``> `` prompt: a multi-line paste is one turn, not one turn a line.

While the turn prompt or a permission question is read (at a question a paste is never the
answer: ``toolhost.runner.terminal_paste``), toolhost asks the terminal to mark pastes
(``ESC[?2004h``); the terminal then wraps what is pasted in ``ESC[200~`` ... ``ESC[201~``.
The terminal stays in its normal
line mode (the kernel still hands over one line at a time, echo and line editing as before),
so the marks arrive inside the lines read: a line holding the start mark begins a paste, the
lines up to the one holding the end mark belong to it, and they are sent as one turn. Text
typed on the prompt's line before the paste and after it (before Enter) is part of that turn.

The mode is turned off again as soon as the prompt's line is read, however the read ends
(a turn, Ctrl-D, Ctrl-C, a signal that ends the session), before Ctrl-Z stops toolhost, and
when the terminal is closed; it is turned on again after ``fg`` while the prompt is read. So
only a ``SIGKILL`` at the ``> `` prompt leaves it on (a shell that uses readline turns it off
at its next prompt).

Bounds and refusals (each said, none sent): a paste over ``PASTE_MAX`` bytes; a paste with a
line the terminal cut (the kernel keeps 4,095 characters of a line); a paste whose end never
came when the input ends (Ctrl-D drops it).

A paste that carries an end mark of its own (``ESC[201~`` inside the pasted text, to end the
paste early and have a newline after it submit a line of its choosing) does not end there:
an end mark with more bytes already behind it (come with the paste, before any key the person
presses) is part of the text, and the paste goes on to the next end mark. Nothing pasted is
submitted without the person's Enter. A Ctrl-D character at the start of a pasted line (the
terminal's end of input) with more of the paste behind it is dropped the same way, not read as
the person's Ctrl-D (which would have left the rest to be read as typed lines). Stray marks
are removed from the turn.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["END", "OFF", "ON", "PASTE_MAX", "START", "Paste", "strip_marks", "wanted"]

START = "\x1b[200~"
END = "\x1b[201~"
ON = "\x1b[?2004h"
OFF = "\x1b[?2004l"
PASTE_MAX = 1024 * 1024  # bytes of one pasted turn; a longer paste is not sent (said so)


def wanted(write_fd: int, environ: Mapping[str, str] | None = None) -> bool:
    """Whether to ask the terminal on ``write_fd`` to mark pastes: it is a terminal, ``TERM``
    names one that understands escape sequences (not ``dumb``), and
    ``TOOLHOST_BRACKETED_PASTE`` is not ``0``."""
    env = os.environ if environ is None else environ
    if env.get("TOOLHOST_BRACKETED_PASTE", "").strip() == "0":
        return False
    if env.get("TERM", "").strip() in ("", "dumb"):
        return False
    try:
        return os.isatty(write_fd)
    except OSError:
        return False


def strip_marks(text: str) -> str:
    """``text`` without paste marks (a stray one, from a paste that carried its own)."""
    return text.replace(START, "").replace(END, "") if "\x1b[20" in text else text


class Paste:
    """The lines of one paste, from the line holding its start mark to the one holding its
    end mark. Memory is bounded: past ``limit`` bytes the lines are counted, not kept."""

    def __init__(self, first: str, limit: int | None = None, *, joined: bool = False) -> None:
        self.limit = PASTE_MAX if limit is None else limit
        self.lines: list[str] = []
        self.size = 0  # bytes read for the paste, newlines included
        self.count = 0  # lines read for the paste
        self.cut = False  # a line of it reached the terminal's limit: its end was lost
        self.done = False
        self.carried = 0  # end marks the pasted text carried (more of it came behind each)
        self.ctrl_d = 0  # Ctrl-D characters it carried at a line's start (the kernel's EOF)
        self.keys = 0  # Ctrl-C, Ctrl-Z, Ctrl-\ characters it carried (dropped from the text)
        self._joined = False  # the last line read was ended by such a key: the next goes on it
        self._add(first.split(START, 1)[1], head=first.split(START, 1)[0], joined=joined)

    @property
    def over(self) -> bool:
        return self.size > self.limit

    def add(self, line: str, *, cut: bool = False, joined: bool = False) -> None:
        """The next line read (without its newline); ``cut``: the terminal cut it;
        ``joined``: a signal key, not a newline, ended it (the next read goes on the line)."""
        self.cut = self.cut or cut
        self._add(line, joined=joined)

    def _add(self, line: str, head: str = "", *, joined: bool = False) -> None:
        inside, end, after = line.partition(END)
        self.done = bool(end)
        more = self._joined and not self.over
        self._joined = joined
        self.count += 0 if more else 1
        self.size += len(head.encode()) + len(line.encode()) + 1
        if self.over:
            self.lines.clear()  # counted, not kept
            return
        text = head + inside + after if end else head + inside
        if more and self.lines:
            self.lines[-1] += text
        else:
            self.lines.append(text)

    @property
    def lines_said(self) -> str:
        """``1 line``, ``3 lines``."""
        return f"{self.count:,} line{'' if self.count == 1 else 's'}"

    @property
    def text(self) -> str:
        """The turn: the lines joined, marks removed."""
        return strip_marks("\n".join(self.lines))
