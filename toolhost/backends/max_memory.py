"""``max_memory`` of a command tool or a process-isolated python tool: the size a run or a
worker may allocate (RLIMIT_DATA, set in the child before it runs anything of the tool's)."""

from __future__ import annotations

from typing import Any

from toolhost.excerpt import cut

__all__ = ["max_memory_bytes"]

MOST = 1 << 40  # 1TiB: as far as a size text goes


def max_memory_bytes(raw: Any, least: int, why_least: str = "") -> int | str:
    """``raw`` (bytes, or a text such as ``1GiB``) in bytes, 0 for none (``None``); or the
    one line saying what is wrong with it: not a size, past 1TiB, below ``least`` (bytes;
    ``why_least``, if given, says why in parentheses)."""
    if raw is None:
        return 0
    from toolhost.limits import parse_size

    if isinstance(raw, bool) or not isinstance(raw, (int, str)):
        return "max_memory: expected a size in bytes or a text such as 1GiB"
    try:
        size = raw if isinstance(raw, int) else parse_size(raw)
    except ValueError as exc:
        return f"max_memory: {exc}"
    if size > MOST:
        return f"max_memory must be at most 1TiB, got {cut(str(size), 40)} bytes"
    if size < least:
        why = f" ({why_least})" if why_least else ""
        return f"max_memory must be at least {least >> 20}MiB{why}, got {size:,} bytes"
    return size
