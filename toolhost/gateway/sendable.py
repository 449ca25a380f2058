"""Whether a value can be sent to an upstream at all: JSON text carries no lone surrogate.

Python's ``json`` reads ``"\\ud800"`` into a string holding a lone surrogate, so a client of
``toolhost serve`` (or a script) can give one in a tool's argument, a resource's URI, a
prompt's argument or an answer to an upstream's question; the rules judge it like any other
text. The ``mcp`` client cannot write it (UTF-8 has no such character): its transport failed
while sending, and the whole connection went down with it ("Connection closed"), every other
call under way on it too, a stdio upstream stopped and started again. So what would go
upstream is looked at first, and a value holding one is refused in one line naming where.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["unsendable"]

_DEEPEST = 300  # deeper than the wire takes (256): said so, never walked further


def unsendable(value: Any) -> str:
    """Why ``value`` cannot be sent as JSON text, or "" when it can: the place of its first
    string or key holding a lone surrogate (``the value at opts.q holds ...``)."""
    todo: list[tuple[Any, str, int]] = [(value, "", 0)]
    while todo:
        node, at, depth = todo.pop()
        if depth > _DEEPEST:
            return f"it nests deeper than {_DEEPEST} levels"
        if isinstance(node, str):
            if _lone(node):
                return _said(at, node)
        elif isinstance(node, Mapping):
            for key, item in node.items():
                place = f"{at}.{key}" if at else str(key)
                if isinstance(key, str) and _lone(key):
                    return _said(at, key, "key")
                todo.append((item, place, depth + 1))
        elif isinstance(node, (list, tuple)):
            todo.extend((item, f"{at}[{k}]", depth + 1) for k, item in enumerate(node))
    return ""


def _lone(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _said(at: str, text: str, kind: str = "value") -> str:
    char = next(c for c in text if 0xD800 <= ord(c) <= 0xDFFF)
    where = f"the {kind} at {ascii(at)[1:-1][:200]}" if at else f"the {kind}"
    if kind == "key" and not at:
        where = "a key"
    return (f"{where} holds a lone surrogate ({ascii(char)[1:-1]}), which JSON text cannot "
            "carry (nothing was sent)")
