"""Expansions whose text bash evaluates as code, for the shell parser (``shell``).

bash evaluates a variable's *value* as an arithmetic expression in ``$((x))``, ``((x))``,
``$[x]``, an indexed array's subscript (``${a[x]}``), a substring's offset and length
(``${s:x:1}``) and indirection (``${!x}``, whose value may name ``a[...]``); and ``${x@P}``
expands a value as a prompt string, command substitutions and all. A value such as
``a[$(rm -rf ~)]`` then runs a command that no word of the line shows (it can be joined from
harmless pieces: ``x=$a$b``). So where such an expression names a variable, or takes text
from an expansion, the line cannot be proven; only numbers (``$((1 << 4))``, ``${s:0:2}``,
``${a[3]}``) are read as they are written.
"""

from __future__ import annotations

import re

__all__ = ["NUMERIC_PARAM", "arith_refusal", "brace_refusal", "subscript_refusal"]

# Numbers in bash arithmetic: decimal, 0x.., 0.. (octal), BASE#digits.
_NUMBER = re.compile(r"(?<![A-Za-z0-9_@#])(?:[0-9]+#[0-9A-Za-z@_]+|0[xX][0-9A-Fa-f]+|[0-9]+)")
_NAME = re.compile(r"[A-Za-z_]")
# ``$#``, ``$?``, ``$$``, ``$!``, ``${#x}``, ``${#a[@]}``: numbers whatever the line does.
NUMERIC_PARAM = re.compile(r"\$[#?$!]|\$\{[#?$!]\}|\$\{#[A-Za-z_][A-Za-z0-9_]*(?:\[[@*]\])?\}")
_BRACE_HEAD = re.compile(r"(#)?(!)?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])")
_INTEGER = re.compile(r"\s*-?[0-9]+\s*")
_SAFE_TRANSFORMS = frozenset("QEAKaULuk")


def arith_refusal(text: str) -> str | None:
    """Why the arithmetic expression ``text`` (what is between ``((`` and ``))``, ``$[`` and
    ``]``, or an offset) cannot be proven: it names a variable or expands text."""
    bare = NUMERIC_PARAM.sub("0", _NUMBER.sub("0", text))
    if "$" in bare or "`" in bare:
        return (f"the arithmetic expression {text.strip()!r} evaluates text from an expansion, "
                "which could run a command")
    if _NAME.search(bare):
        return (f"the arithmetic expression {text.strip()!r} evaluates a variable's value, "
                "which could run a command (a value such as 'a[$(rm x)]')")
    return None


def subscript_refusal(sub: str) -> str | None:
    """Why the array subscript ``sub`` cannot be proven (bash evaluates it as arithmetic)."""
    if sub in ("@", "*") or _INTEGER.fullmatch(sub):
        return None
    return (f"the subscript [{sub}] is evaluated as arithmetic and could run a command "
            "through a variable's value")


def _bracket_end(text: str, i: int) -> int:
    """Index of the ``]`` closing the ``[`` at ``i``; -1 if none."""
    depth = 0
    for j in range(i, len(text)):
        if text[j] == "[":
            depth += 1
        elif text[j] == "]":
            depth -= 1
            if depth == 0:
                return j
    return -1


def brace_refusal(body: str) -> str | None:
    """Why ``${body}`` cannot be proven: indirection, an evaluated subscript, an offset or
    length that is not a number, or the ``@P`` transformation."""
    m = _BRACE_HEAD.match(body)
    if m is None:
        return None  # bash refuses it: a bad substitution
    rest = body[m.end():]
    if m.group(2) and rest not in ("*", "@", "[@]", "[*]"):
        return (f"the indirection ${{{body}}} evaluates a variable's value as a name, "
                "whose subscript could run a command")
    if rest.startswith("["):
        end = _bracket_end(rest, 0)
        if end < 0:
            return f"the subscript of ${{{body}}} does not end"
        if (why := subscript_refusal(rest[1:end])) is not None:
            return why
        rest = rest[end + 1:]
    if rest.startswith("@"):
        if rest[1:] not in _SAFE_TRANSFORMS:
            return (f"the transformation ${{{body}}} expands a value as a prompt string, "
                    "which runs its command substitutions")
    elif rest.startswith(":") and rest[1:2] not in ("-", "=", "?", "+"):
        for part in rest[1:].split(":", 1):
            if (why := arith_refusal(part)) is not None:
                return why
    return None
