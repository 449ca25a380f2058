"""The rest of a question's answer after an Escape, edited as a person expects.

At a permission question ESC ends the terminal's line (``SignalKeys.off(signals=False)``), so
a paste's start mark is seen as it comes; the kernel has then handed over what was typed
before it, and its own line editing cannot reach back into that text. From the ESC on, the
answer is read byte by byte with the terminal's echo off, and edited here the way the
kernel would have, so Escape never turns the rest of the line into something else:

- Backspace (the terminal's erase key, or ^H) erases a character, also one typed before the
  Escape; Ctrl-U (kill) the whole answer; Ctrl-W (word erase) the word before the cursor.
- A key that sends an escape sequence (an arrow, Home, End, Delete, a function key: CSI
  ``ESC [ ... final`` or SS3 ``ESC O x``) does nothing; nor does Escape alone.
- Alt+Backspace (ESC and the erase key in one write) erases the word before the cursor, as
  Ctrl-W does. Another Alt+key does nothing: Alt+y is never a ``y``. A key typed
  after an Escape, later, is typed as it is.
- Enter ends the answer; Ctrl-D on an empty answer is the end of input (a deny, as before).
- A paste's start mark (``ESC [200~``) is the start of a paste (``paste``): the caller
  drops it, as a paste at a question always is.

Other control characters do nothing. What is kept is echoed (erased with ``\\b \\b`` as the
kernel does, no other escape: a dumb terminal is fine).
"""

from __future__ import annotations

import codecs
import re
import unicodedata

__all__ = ["LineEdit", "shown_width", "without_keys"]

# A key's escape sequence in a line the kernel edited (the ``> `` prompt): CSI, SS3, Alt+key,
# or Escape alone
_KEY = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|[^\x1b])?", re.DOTALL)


def without_keys(line: str) -> tuple[str, int]:
    """A line typed at the ``> `` prompt without the escape sequences of the keys pressed in
    it (an arrow, Home, Alt+b: there is no cursor movement nor history: they do nothing,
    never text sent to the model), and how many there were."""
    if "\x1b" not in line:
        return line, 0
    return _KEY.subn("", line)

_ESC = 0x1B
_CSI_MAX = 32  # a longer "sequence" is no key: what follows is typed text again


def shown_width(text: str, *, ctl: bool = True) -> int:
    """Columns the terminal's echo of ``text`` takes (control characters as ``^X``)."""
    width = 0
    for char in text:
        if ord(char) < 0x20 or ord(char) == 0x7F:
            width += 2 if ctl and char not in "\t\n" else 0
        elif unicodedata.combining(char):
            continue
        else:
            width += 2 if unicodedata.east_asian_width(char) in "WF" else 1
    return width


class LineEdit:
    """An answer being edited (see the module docstring): ``feed`` each byte read, with
    whether it came in the same write as the ESC before it; ``done`` when it ended."""

    def __init__(self, text: str, *, erase: bytes = b"\x7f", kill: bytes = b"\x15",
                 werase: bytes = b"\x17", eof: bytes = b"\x04", limit: int = 4095) -> None:
        self.text = text
        self.done = False  # Enter, Ctrl-D, or a paste's start
        self.eof = False  # Ctrl-D on an empty answer: the end of input
        self.paste = False  # a paste's start mark came: the caller drops the paste
        self.cut = False  # past ``limit`` bytes: what came after was not kept
        self._erase = {erase, b"\x7f", b"\x08"}
        self._kill, self._werase, self._eof = kill, werase, eof
        self._limit = limit
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._seq: bytes | None = None  # an escape sequence being read (b"" after ESC)
        self._alt = False  # the byte after the ESC came with it: a key combination
        self.fed = 0  # bytes taken so far

    @property
    def in_sequence(self) -> bool:
        """Whether an escape sequence is being read (its key not known yet)."""
        return self._seq is not None

    @property
    def after_escape(self) -> bool:
        """Whether the last byte fed was an ESC (the next one may come with it)."""
        return self._seq == b""

    def feed(self, byte: bytes, *, with_escape: bool = False) -> str:
        """Take one byte; the echo to write. ``with_escape``: it came in the same write as
        the ESC before it (Alt+key, an arrow key's sequence), not typed after it."""
        self.fed += 1
        seq = self._seq
        if seq is not None:
            return self._in_sequence(seq, byte, with_escape)
        if byte[0] == _ESC:
            self._seq = b""
            return ""
        return self._key(byte)

    def _in_sequence(self, seq: bytes, byte: bytes, with_escape: bool) -> str:
        code = byte[0]
        if seq == b"":  # the byte right after an ESC
            if code == _ESC:
                return ""  # Escape again: still nothing
            if byte in (b"[", b"O"):
                self._seq = byte
                return ""
            self._seq = None
            if with_escape and byte in self._erase:  # Alt+Backspace: the word before it
                return self._key(self._werase)
            if with_escape and code >= 0x20 and byte not in self._erase:
                self._alt = code >= 0x80  # Alt+key: the key's character is dropped whole
                if code >= 0xC0 or code < 0x80:
                    return ""
            return self._key(byte)
        seq += byte
        if seq[:1] == b"O":  # SS3: one byte after the O
            self._seq = None
            return ""
        if 0x20 <= code <= 0x3F and len(seq) < _CSI_MAX:
            self._seq = seq  # parameters and intermediates: read on
            return ""
        self._seq = None
        if 0x40 <= code <= 0x7E:  # the final byte: a key that does nothing here
            if seq == b"[200~":
                self.paste = self.done = True
            return ""
        return self._key(byte)  # not a sequence after all: this byte is typed

    def _key(self, byte: bytes) -> str:
        code = byte[0]
        if self._alt:  # the rest of a character Alt came with
            if 0x80 <= code < 0xC0:
                return ""
            self._alt = False
        if byte in (b"\n", b"\r"):
            self.done = True
            return "\n"
        if byte == self._eof:
            if not self.text:
                self.eof = self.done = True
                return "\n"
            return ""  # (the kernel would hand the line over without its Enter: wait for it)
        if byte in self._erase:
            return self._rub(1)
        if byte == self._kill:
            return self._rub(len(self.text))
        if byte == self._werase:
            kept = self.text.rstrip(" \t")
            kept = kept[:len(kept) - len(kept.split()[-1])] if kept.split() else kept
            return self._rub(len(self.text) - len(kept))
        if code < 0x20 or code == 0x7F:
            return ""  # another control character: nothing
        char = self._decoder.decode(byte)
        if not char:
            return ""  # more of the character to come
        if len((self.text + char).encode()) > self._limit:
            self.cut = True
            return ""
        self.text += char
        return char

    def _rub(self, count: int) -> str:
        if count <= 0:
            return ""
        gone, self.text = self.text[len(self.text) - count:], self.text[:len(self.text) - count]
        width = shown_width(gone, ctl=False)
        return "\b" * width + " " * width + "\b" * width
