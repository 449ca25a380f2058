"""Pastes read by ``toolhost.runner.terminal.Terminal`` while the terminal marks them
(``toolhost.runner.paste``): at the ``> `` prompt a paste is one turn; at a permission
question a paste is never the answer.

At a question the marks are on too (the signal keys stay signals there: a Ctrl-C a paste
carries denies the question). A line holding the paste's start mark begins a paste that is
read to its end mark however long the terminal takes to write it (a terminal that pauses
mid-paste, a slow or loaded emulator, a paste larger than its buffer): the end is the mark,
never a pause. None of it answers: it is dropped, said with its size, and the question is
asked again. ESC ends a line at a question (``SignalKeys.off(signals=False)``), so a paste
is seen by its start mark as it comes, a word pasted with no newline included, never kept
waiting in the terminal's line for an Enter (``_after_escape``). A terminal that does not
mark pastes (``TERM=dumb``, ``TOOLHOST_BRACKETED_PASTE=0``) falls back to what came with an
answer being dropped while it keeps coming (``TerminalInput._drop_with_answer``).
"""

from __future__ import annotations

import termios

from toolhost.runner import paste as marks
from toolhost.runner.terminal_input import CANON_LIMIT, TerminalInput
from toolhost.runner.ttyfd import bytewise, pending, pending_with_partial

__all__ = ["PasteInput"]

_END = marks.END.encode()
_MARK_TAIL = marks.START.encode()[1:]  # the start mark after its ESC


class _TypedKey(Exception):
    """The person pressed a signal key (Ctrl-C, Ctrl-Z, Ctrl-\\) at the turn prompt, read as a
    key (``toolhost.runner.signal_keys``): what was typed is dropped, the signal sent."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class PasteInput(TerminalInput):
    """Paste reading for ``Terminal`` (see the module docstring)."""

    _at_mark = False  # the line was read up to a paste's start mark (``_after_escape``)

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

    async def _after_escape(self, line: str) -> str | None:
        """A line read at a question ended at ESC (``SignalKeys.off(signals=False)``): the
        start of a paste's mark, or a key the person typed (Escape, an arrow key). What
        follows is read byte by byte while it is the start mark's: the whole mark makes the
        line a paste's start, seen before any Enter (``_skip_paste``), so a word pasted with
        no newline is dropped at once instead of waiting for an Enter that would send it
        with whatever was typed after it. Anything else is the rest of a typed line: it ends
        at Enter or Ctrl-D as it would have. None: the terminal hung up."""
        while line.endswith("\x1b"):
            got = b""
            with bytewise(self.read_fd):
                while _MARK_TAIL.startswith(got) and got != _MARK_TAIL:
                    chunk = await self._read_chunk(1)
                    if chunk is None:
                        continue
                    if not chunk:  # hung up: no answer
                        return None
                    got += chunk
                    if chunk in (b"\n", b"\r", self._eof):  # Enter, Ctrl-D: the line ends
                        return line + got[:-1].decode("utf-8", errors="replace")
            line += got.decode("utf-8", errors="replace")
            if got == _MARK_TAIL:
                self._at_mark = True  # read up to the mark: no newline
                return line
            rest = await self._read_line()  # the rest of the line (to its next ESC)
            if rest is None:
                return line
            line += rest
        return line

    async def _skip_paste(self, first: str) -> int | None:
        """A paste at a question (its first line read): read to its end mark and dropped,
        said with its size; the bytes dropped, or None when the input ended first (Ctrl-D,
        a hang-up). Its end is the mark, however long the terminal pauses writing it: the
        rest of a paste never answers this question, nor the next, nor becomes a turn. An end
        mark with more of the paste already behind it was carried in the pasted text: the
        paste goes on. The rest is read byte by byte (``ttyfd.bytewise``): a paste's last
        line has no newline of its own, and the person's Enter is not needed to end it."""
        size = len(first.encode()) + (0 if self._at_mark else 1)  # its newline, if read
        self._at_mark = False
        seen = first.split(marks.START, 1)[1].encode()
        if _END in seen and not self._more_behind():
            return self._skipped(size)  # the paste was this line (its Enter typed after it)
        carried = _END in seen
        if carried:
            seen = seen[seen.rindex(_END) + len(_END):]  # carried: read on
        with bytewise(self.read_fd):
            while True:
                # after a carried end mark, what came with it is read: never wait for an
                # end that may not come (as at the turn prompt)
                if (seen.endswith(_END) or carried) and pending(self.read_fd) == 0:
                    return self._skipped(size)
                chunk = await self._read_chunk(65536)
                if chunk is None:
                    continue
                if not chunk or chunk == self._eof:  # hung up, or the person's Ctrl-D
                    self.write(f"\n(a paste began at the question but its end never came: "
                               f"{size:,} bytes of it ignored)\n")
                    return None
                size += len(chunk)
                seen = (seen + chunk)[-len(_END) - 64:]
                if _END in seen and not seen.endswith(_END):
                    seen = seen[seen.rindex(_END) + len(_END):]  # carried: read on
                    carried = True

    @property
    def _eof(self) -> bytes:
        """The terminal's end-of-input key (Ctrl-D) as read when line mode is off."""
        try:
            key = termios.tcgetattr(self.read_fd)[6][termios.VEOF]
        except (OSError, termios.error):
            return b"\x04"
        return key if isinstance(key, bytes) else b"\x04"

    def _skipped(self, size: int) -> int:
        self.write(f"\n(ignored a paste of {size:,} bytes at the question: a paste never "
                   "answers one; type the answer)\n")
        return size

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

