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
answer being dropped while it keeps coming (``TypeaheadInput._drop_with_answer``).
"""

from __future__ import annotations

import termios

import anyio

from toolhost.runner import paste as marks
from toolhost.runner.line_edit import LineEdit
from toolhost.runner.terminal_input import CANON_LIMIT
from toolhost.runner.terminal_typeahead import TypeaheadInput
from toolhost.runner.ttyfd import pending, pending_with_partial
from toolhost.runner.ttyheld import foreground, job_control
from toolhost.runner.ttymodes import bytewise, line_mode, line_mode_off

__all__ = ["PasteInput"]

_END = marks.END.encode()


def _char(key: object, default: bytes) -> bytes:
    """One of the terminal's editing keys (``stty``), or ``default`` when it has none."""
    return key if isinstance(key, bytes) and len(key) == 1 and key != b"\0" else default


class _HungUp(Exception):
    """The terminal hung up while an answer was edited (``_edit_answer``)."""


class _TypedKey(Exception):
    """The person pressed a signal key (Ctrl-C, Ctrl-Z, Ctrl-\\) at the turn prompt, read as a
    key (``toolhost.runner.signal_keys``): what was typed is dropped, the signal sent."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class PasteInput(TypeaheadInput):
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

    def _answer_keys_on(self) -> bool:
        """The terminal's line editing and echo off for a question's answer (every key read
        as it comes, edited by ``line_edit``; ``ISIG`` stays: Ctrl-C is a real SIGINT); False
        when its modes cannot be set now (in the background: only from the foreground)."""
        if self._answer_flags is not None:
            return True
        fd = self.read_fd
        try:
            modes = termios.tcgetattr(fd)
        except (OSError, termios.error):
            return False
        if not foreground(fd):
            return False
        cc = modes[6]
        flags = modes[3] & (termios.ICANON | termios.ECHO)
        self._answer_echo = bool(modes[3] & termios.ECHO)
        self._answer_ctl = (_char(cc[termios.VERASE], b"\x7f"), _char(cc[termios.VKILL], b"\x15"),
                            _char(cc[termios.VWERASE], b"\x17"), _char(cc[termios.VEOF], b"\x04"))
        self._answer_saved = (flags, cc[termios.VMIN], cc[termios.VTIME])
        # the watchdog first: a kill -9 while the modes change (the end-of-input key off
        # for a moment) is put back too
        self._watch_modes(changing=flags)
        self._ahead += line_mode_off(fd, flags, self._answer_ctl[3])
        self._answer_flags = flags
        self._watch_modes()
        return True

    def _answer_keys_off(self) -> None:
        """Line editing and echo back as they were before ``_answer_keys_on`` (the rest of
        the modes as they are now: a Ctrl-Z and fg meanwhile may have changed them)."""
        if self._answer_flags is None:
            return
        self._answer_flags = None
        if foreground(self.read_fd):
            flags, vmin, vtime = self._answer_saved
            line_mode(self.read_fd, flags, vmin=vmin, vtime=vtime)

    async def _read_answer(self) -> str | None:
        """A question's answer, edited from its first key (``line_edit``); it ends at Enter,
        at a paste's start mark (the text then ends with ``START``: the caller drops the
        paste), or with None at Ctrl-D on an empty answer or a hang-up."""
        while not self._answer_keys_on():
            if foreground(self.read_fd) or not job_control():
                return await self._read_line()  # no modes to set: the kernel's line
            await anyio.sleep(0.25)  # asked in the background: the keys are read after fg
        erase, kill, werase, eof = self._answer_ctl
        edit = LineEdit("", erase=erase, kill=kill, werase=werase, eof=eof, limit=CANON_LIMIT)
        self._edit = edit
        try:
            await self._edit_answer(edit, echo=self._answer_echo)
        except _HungUp:
            return None
        finally:
            self._edit = None
        if edit.eof:
            return None
        if edit.paste:
            self._at_mark = True  # read up to the mark: no newline
            return edit.text + marks.START
        self._cut = edit.cut
        return edit.text

    async def _edit_answer(self, edit: LineEdit, *, echo: bool) -> None:
        """Read an answer into ``edit``, one byte at a time (what follows an Enter, or a
        paste's start mark, is left unread: it came with the answer, never answers)."""
        fd = self.read_fd
        joined = False
        said = ""
        while not edit.done:
            # keys the terminal had taken in line mode first (``ttymodes.line_mode_off``)
            chunk: bytes | None = self._ahead[:1]
            if chunk:
                self._ahead = self._ahead[1:]
            else:
                chunk = await self._read_chunk(1)
            if chunk is None:
                continue
            if not chunk:
                raise _HungUp
            said += edit.feed(chunk, with_escape=joined)
            # Alt+key, an arrow's sequence: its next byte already there
            joined = edit.after_escape and (bool(self._ahead) or pending(fd) > 0)
            if echo and not edit.in_sequence and not edit.paste and said:
                self.write(said)
                said = ""

    async def _skip_paste(self, first: str) -> int | None:
        """A paste at a question (its first line read): read to its end mark and dropped,
        said with its size; the bytes dropped, or None when the input ended first (Ctrl-D,
        a hang-up). Its end is the mark, however long the terminal pauses writing it: the
        rest of a paste never answers this question, nor the next, nor becomes a turn. An end
        mark with more of the paste already behind it was carried in the pasted text: the
        paste goes on. The rest is read byte by byte (``ttymodes.bytewise``): a paste's last
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

