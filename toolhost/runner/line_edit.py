"""A permission question's answer, edited from its first key as a person expects.

At a question the terminal's own line editing is off (``terminal_paste``): every key is read
as it comes, with the terminal's echo off, and edited here. The signal keys stay signals
(``ISIG``): Ctrl-C is a real SIGINT (the question denied), Ctrl-Z stops toolhost. Keys:

- Enter ends the answer; Ctrl-D on an empty answer is the end of input (a deny).
- Left/Right (and Ctrl-B/Ctrl-F) move by a character as seen (``cells``: a letter and its
  combining marks, an emoji and its modifiers); Ctrl+Left/Right, Alt+Left/Right and
  Alt+b/Alt+f by a word; Home/End and Ctrl-A/Ctrl-E to the start and end.
- Backspace (the terminal's erase key, or ^H) erases the character before the cursor,
  Delete (and Ctrl-D on a non-empty answer) the one under it; Ctrl-U (the terminal's kill
  key) erases to the start, Ctrl-K to the end; Ctrl-W (word erase) and Alt+Backspace erase
  the word before the cursor, Alt+d the word after it.
- Another key that sends an escape sequence (Up/Down, a function key: CSI ``ESC [ ... final``
  or SS3 ``ESC O x``) does nothing; nor does Escape alone, nor another Alt+key (Alt+y is never
  a ``y``). A key typed after an Escape, later, is typed as it is.
- A paste's start mark (``ESC [200~``) is the start of a paste (``paste``): the caller
  drops it, as a paste at a question always is.

Other control characters do nothing. The echo uses no escape sequence (a dumb terminal is
fine): the cursor moves back with ``\\b`` (twice over a wide character) and forward by
writing what it passes; an edit writes the rest of the line again.
"""

from __future__ import annotations

import codecs
import re

from toolhost.runner.cells import next_char, next_word, prev_char, prev_word, shown_width

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
# The keys a CSI or SS3 sequence names: by its final byte, and ``~`` sequences by number
_FINAL = {b"D": "left", b"C": "right", b"H": "home", b"F": "end"}
_TILDE = {b"1": "home", b"7": "home", b"4": "end", b"8": "end", b"3": "delete"}
_CONTROL = {b"\x01": "home", b"\x05": "end", b"\x02": "left", b"\x06": "right",
            b"\x0b": "kill-end"}
_ALT = {b"b": "word-left", b"f": "word-right", b"d": "kill-word"}


class LineEdit:
    """An answer being edited (see the module docstring): ``feed`` each byte read, with
    whether it came in the same write as the ESC before it; ``done`` when it ended."""

    def __init__(self, text: str = "", *, erase: bytes = b"\x7f", kill: bytes = b"\x15",
                 werase: bytes = b"\x17", eof: bytes = b"\x04", limit: int = 4095) -> None:
        self.text = text
        self.pos = len(text)  # the cursor: where the next character typed goes
        self.done = False  # Enter, Ctrl-D, or a paste's start
        self.eof = False  # Ctrl-D on an empty answer: the end of input
        self.paste = False  # a paste's start mark came: the caller drops the paste
        self.cut = False  # past ``limit`` bytes: what came after was not kept
        self._erase = {erase, b"\x7f", b"\x08"}
        self._kill, self._werase, self._eof = kill, werase, eof
        self._limit = limit
        self._size = len(text.encode())
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

    @property
    def back(self) -> str:
        """The echo that takes the cursor from the end of the text back to ``pos``."""
        return "\b" * shown_width(self.text[self.pos:], ctl=False)

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
                return self._rub(prev_word(self.text, self.pos), self.pos)
            if with_escape and byte in _ALT:
                return self._do(_ALT[byte])
            if with_escape and code >= 0x20 and byte not in self._erase:
                self._alt = code >= 0x80  # Alt+key: the key's character is dropped whole
                if code >= 0xC0 or code < 0x80:
                    return ""
            return self._key(byte)
        seq += byte
        if seq[:1] == b"O":  # SS3: one byte after the O
            self._seq = None
            return self._do(_FINAL.get(byte, ""))
        if 0x20 <= code <= 0x3F and len(seq) < _CSI_MAX:
            self._seq = seq  # parameters and intermediates: read on
            return ""
        self._seq = None
        if 0x40 <= code <= 0x7E:  # the final byte: the key
            if seq == b"[200~":
                self.paste = self.done = True
                return ""
            return self._do(_csi_key(seq))
        return self._key(byte)  # not a sequence after all: this byte is typed

    def _key(self, byte: bytes) -> str:
        code = byte[0]
        if self._alt:  # the rest of a character Alt came with
            if 0x80 <= code < 0xC0:
                return ""
            self._alt = False
        if byte in (b"\n", b"\r"):
            self.done = True
            return self.text[self.pos:] + "\n"
        if byte == self._eof:
            if not self.text:
                self.eof = self.done = True
                return "\n"
            return self._do("delete")
        if byte in self._erase:
            return self._rub(prev_char(self.text, self.pos), self.pos)
        if byte == self._kill:
            return self._rub(0, self.pos)
        if byte == self._werase:
            return self._rub(prev_word(self.text, self.pos), self.pos)
        if byte in _CONTROL:
            return self._do(_CONTROL[byte])
        if code < 0x20 or code == 0x7F:
            return ""  # another control character: nothing
        # nothing until a character is whole; a C1 control character: nothing
        chars = "".join(c for c in self._decoder.decode(byte) if not 0x80 <= ord(c) < 0xA0)
        return self._insert(chars) if chars else ""

    def _insert(self, char: str) -> str:
        size = len(char.encode())
        if self._size + size > self._limit:
            self.cut = True
            return ""
        self._size += size
        after = self.text[self.pos:]
        self.text = self.text[:self.pos] + char + after
        self.pos += len(char)
        return char + after + "\b" * shown_width(after, ctl=False)

    def _do(self, action: str) -> str:
        text, pos = self.text, self.pos
        if action in ("left", "word-left", "home"):
            to = {"left": prev_char, "word-left": prev_word}.get(action, _start)(text, pos)
            self.pos = to
            return "\b" * shown_width(text[to:pos], ctl=False)
        if action in ("right", "word-right", "end"):
            to = {"right": next_char, "word-right": next_word}.get(action, _end)(text, pos)
            self.pos = to
            return text[pos:to]
        if action == "delete":
            return self._rub(pos, next_char(text, pos))
        if action == "kill-end":
            return self._rub(pos, len(text))
        if action == "kill-word":
            return self._rub(pos, next_word(text, pos))
        return ""  # a key that does nothing here

    def _rub(self, start: int, end: int) -> str:
        """Erase ``text[start:end]`` (the cursor at ``end`` or at ``start``): the echo."""
        if end <= start:
            return ""
        back = "\b" * shown_width(self.text[start:self.pos], ctl=False)
        gone = shown_width(self.text[start:end], ctl=False)
        self._size -= len(self.text[start:end].encode())
        self.text = self.text[:start] + self.text[end:]
        self.pos = start
        after = self.text[start:]
        return back + after + " " * gone + "\b" * (shown_width(after, ctl=False) + gone)


def _csi_key(seq: bytes) -> str:
    """The key a CSI sequence (``[`` to its final byte) names ("" for one that does nothing
    here): an arrow with Ctrl or Alt (``[1;5D``) moves by a word."""
    final, params = seq[-1:], seq[1:-1].split(b";")
    if final == b"~":
        return _TILDE.get(params[0], "") if len(params) == 1 else ""
    key = _FINAL.get(final, "")
    if len(params) == 2 and params[1] in (b"3", b"5") and key in ("left", "right"):
        return "word-" + key
    return key if params in ([b""], [b"1"]) else ""


def _start(text: str, pos: int) -> int:
    return 0


def _end(text: str, pos: int) -> int:
    return len(text)
