"""The hint for a JSON habit YAML and TOML refuse: a character past U+FFFF written as its
UTF-16 surrogate pair (``"\\ud83d\\ude00"``, as ``json.dumps`` writes it). Both parsers say only
"invalid escape" at the first half; the fix is one ``\\U`` escape of eight digits."""

from __future__ import annotations

import re

__all__ = ["surrogate_hint"]

# (text: compiled at its first use, kept in re's cache; not at every start)
_ESCAPE = r"\\u([dD][89a-fA-F][0-9a-fA-F]{2})(?:\\u([dD][c-fC-F][0-9a-fA-F]{2}))?"


def surrogate_hint(text: str, line: int) -> str:
    """How to write the first surrogate escape on ``line`` (1-based) of ``text``; "" if none."""
    lines = text.splitlines()
    if not 1 <= line <= len(lines):
        return ""
    found = re.search(_ESCAPE, lines[line - 1])
    if found is None:
        return ""
    if found[2] is None or int(found[1], 16) >= 0xDC00:
        return (f"\\u{found[1]} is half of a UTF-16 surrogate pair, which is no character: "
                "write the character itself, or its \\U escape of eight hex digits")
    code = 0x10000 + ((int(found[1], 16) - 0xD800) << 10) + (int(found[2], 16) - 0xDC00)
    return (f"{found[0]} is a UTF-16 surrogate pair (JSON's way): write \\U{code:08X} "
            "or the character itself")
