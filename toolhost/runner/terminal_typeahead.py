"""What was typed ahead on a ``Terminal``: keys typed before a question (dropped: nothing
typed ahead answers it, ``discard_typeahead``) and lines pasted with an answer (never the next
turn, ``_drop_with_answer``), counted whole even when the terminal hands a paste over in pieces
(``_settle``), and the rest of a paste larger than the terminal's buffer dropped while it keeps
coming (``ttyfd.drain``)."""

from __future__ import annotations

import contextlib
import termios

import anyio

from toolhost.runner.terminal_input import OVERFLOW, TerminalInput
from toolhost.runner.ttyfd import drain, drop, pending_with_partial

__all__ = ["TypeaheadInput"]


class TypeaheadInput(TerminalInput):
    """``TerminalInput`` with what was typed ahead dropped or counted (see the module
    docstring)."""

    def discard_typeahead(self) -> int:
        """Drop what was typed before now (so it cannot answer a question); how many bytes
        (a line not finished yet included: a turn being typed when a question came)."""
        overflow = self._overflowed()
        typed = pending_with_partial(self.read_fd) + len(self._ahead)
        self._ahead = b""
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
        count = pending_with_partial(self.read_fd) + len(self._ahead)
        still = 0.0
        waited = 0.0
        while count and count < OVERFLOW and still < 0.1 and waited < 1.0:
            await anyio.sleep(0.02)
            waited += 0.02
            now = pending_with_partial(self.read_fd) + len(self._ahead)
            still = still + 0.02 if now == count else 0.0
            count = now
        return count

    def _drop_with_answer(self, more: str = "") -> None:
        overflow = self._overflowed()
        ahead, self._ahead = self._ahead, b""  # read already (``line_mode_off``)
        dropped = len(ahead) + drop(self.read_fd, self._with_answer - len(ahead))
        if overflow:  # a paste larger than the terminal's buffer: the rest of it came
            dropped += drain(self.read_fd)  # later, and is no turn either
        self._with_answer = 0
        if dropped:
            self.write(f"(ignored {dropped} characters that came with the answer to a "
                       f"question: they are not sent{', ' + more if more else ''})\n")
