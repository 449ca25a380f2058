"""The shell parser's error, and decoding ANSI-C quoting (``$'...'``) for it
(``toolhost.permissions.shell``)."""

from __future__ import annotations

import re

__all__ = ["ShellSyntaxError", "ansi_c"]


class ShellSyntaxError(ValueError):
    """The command is not valid shell (an unterminated quote or substitution)."""

_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
            "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def ansi_c(s: str, i: int, out: list[str]) -> int:
    """Decode the body of ``$'...'`` starting at ``i``; return the index past the quote."""
    while i < len(s):
        c = s[i]
        if c == "'":
            return i + 1
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = s[i + 1:i + 2]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "01234567" and e:
            m = re.match(r"[0-7]{1,3}", s[i + 1:])
            assert m is not None
            out.append(chr(int(m.group(), 8) & 0xFF))
            i += 1 + m.end()
        elif e in ("x", "u", "U"):
            width = {"x": 2, "u": 4, "U": 8}[e]
            m = re.match(f"[0-9a-fA-F]{{1,{width}}}", s[i + 2:])
            if m is None:
                out.append("\\" + e)
                i += 2
            else:
                code = int(m.group(), 16)
                out.append(chr(code) if code < 0x110000 else "\ufffd")
                i += 2 + m.end()
        elif e == "c" and i + 2 < len(s):
            out.append(chr(ord(s[i + 2]) & 0x1F))
            i += 3
        else:
            out.append("\\" + e)
            i += 2
    raise ShellSyntaxError("unterminated $'...' quote")
