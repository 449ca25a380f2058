"""How long a command's argv template may be: a command line, not a list of data."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["MAX_ARGV_ELEMENTS", "check_size"]

# A command line a config writes has at most this many arguments (groups' items counted):
# far more than any program's options, and far fewer than would make loading slow (each is
# a template; 490,000 took 14 s). A longer list is data: pass it on stdin or in a file.
MAX_ARGV_ELEMENTS = 10_000


def check_size(raw_argv: Sequence[Any]) -> tuple[str, str, str] | None:
    """(message, key, hint) when ``raw_argv`` has more than ``MAX_ARGV_ELEMENTS`` elements,
    counted before any is compiled; the key names the first element past the limit."""
    count = 0
    for raw in raw_argv:
        count += _width(raw)
    if count <= MAX_ARGV_ELEMENTS:
        return None
    count = 0
    for i, raw in enumerate(raw_argv):
        width = _width(raw)
        if count + width > MAX_ARGV_ELEMENTS:
            past = MAX_ARGV_ELEMENTS - count  # the index of the first item past the limit
            key = f".argv[{i}].argv[{past}]" if _items(raw) else f".argv[{i}]"
            return (
                f"argv has more than {MAX_ARGV_ELEMENTS:,} elements (groups' items counted): "
                "a command line that long is data, not a command", key,
                "pass the values on stdin, or in a file the program reads")
        count += width
    return None


def _items(raw: Any) -> int:
    """How many items a group element holds (0 for a template)."""
    if type(raw) is str or not isinstance(raw, Mapping):
        return 0
    inner = raw.get("argv")
    return len(inner) if isinstance(inner, (list, tuple)) else 0


def _width(raw: Any) -> int:
    return 1 if type(raw) is str else max(1, _items(raw))
