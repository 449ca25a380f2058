"""The shell parser's error, and ANSI-C quoting (``$'...'``) read the way bash reads it
(``toolhost.permissions.shell.parse``).

bash finds the end of ``$'...'`` first (a backslash takes the next character with it, whatever
it is: ``$'\\c'`` ends at its second quote) and only then decodes the body, so the two steps
are kept apart here too.
"""

from __future__ import annotations

import re

__all__ = ["ShellSyntaxError", "ansi_c", "ansi_c_end", "decode_ansi_c"]


class ShellSyntaxError(ValueError):
    """The command is not valid shell (an unterminated quote or substitution)."""


_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_OCTAL = re.compile(r"[0-7]{1,3}")
_HEX = {"x": re.compile(r"[0-9a-fA-F]{1,2}"), "u": re.compile(r"[0-9a-fA-F]{1,4}"),
        "U": re.compile(r"[0-9a-fA-F]{1,8}")}


def ansi_c_end(s: str, i: int) -> int:
    """The index past the quote closing a ``$'...'`` whose body starts at ``i``."""
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "'":
            return i + 1
        else:
            i += 1
    raise ShellSyntaxError("unterminated $'...' quote")


def decode_ansi_c(body: str) -> str:
    """What bash makes of the body of ``$'...'``: ``\\n``, ``\\t``..., ``\\NNN`` (octal, one
    byte), ``\\xHH``, ``\\uHHHH``, ``\\UHHHHHHHH``, ``\\cX`` (a control character; ``\\c`` at
    the end stays as written), an unknown escape kept with its backslash; a NUL ends it."""
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 == n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "01234567":
            m = _OCTAL.match(body, i + 1)
            assert m is not None
            out.append(chr(int(m.group(), 8) & 0xFF))
            i = m.end()
        elif e in _HEX:
            m = _HEX[e].match(body, i + 2)
            if m is None:
                out.append("\\" + e)
                i += 2
            else:
                code = int(m.group(), 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
                i = m.end()
        elif e == "c" and i + 2 < n:
            x = body[i + 2]
            i += 3
            if x == "\\" and body[i:i + 1] == "\\":  # ``\c\\`` is control-backslash
                i += 1
            out.append("\x7f" if x == "?" else chr(ord(x.upper()) & 0x1F))
        else:
            out.append("\\" + e)
            i += 2
    return "".join(out).split("\0", 1)[0]


def ansi_c(s: str, i: int, out: list[str]) -> int:
    """Decode the body of ``$'...'`` starting at ``i`` into ``out``; return the index past its
    closing quote."""
    end = ansi_c_end(s, i)
    out.append(decode_ansi_c(s[i:end - 1]))
    return end
