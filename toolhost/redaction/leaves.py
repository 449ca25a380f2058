"""The strings of a JSON-like value, in the order its JSON writes them, and the value again
with new strings in their place: the one walker of the flows that read a value's strings
after the messages before it (``toolhost.mcp.session_flow``, the audit log's
``toolhost.permissions.audit_flow``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["replaced", "strings"]


def strings(value: Any, out: list[str], keys: list[bool] | None = None) -> None:
    """Appends to ``out`` every string of ``value`` (nested in dicts, lists and tuples), in
    order. With ``keys``, a dict's string keys too, each before its value, and to ``keys``
    whether each string appended is a key."""
    if isinstance(value, str):
        out.append(value)
        if keys is not None:
            keys.append(False)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if keys is not None and isinstance(key, str):
                out.append(key)
                keys.append(True)
            strings(item, out, keys)
    elif isinstance(value, (list, tuple)):
        for item in value:
            strings(item, out, keys)


def replaced(value: Any, shown: Iterator[str], *, keys: bool = False) -> Any:
    """``value`` with each of its strings (and, with ``keys``, its dict's string keys) the
    next of ``shown``, in the order ``strings`` read them (tuples become lists, as in JSON).
    Two keys shown alike are both kept, the second as ``key#2`` (and so on)."""
    if isinstance(value, str):
        return next(shown)
    if isinstance(value, Mapping):
        if not keys:
            return {key: replaced(item, shown) for key, item in value.items()}
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str):
                key = next(shown)
                if key in out:
                    n = 2
                    while f"{key}#{n}" in out:
                        n += 1
                    key = f"{key}#{n}"
            out[key] = replaced(item, shown, keys=True)
        return out
    if isinstance(value, (list, tuple)):
        return [replaced(item, shown, keys=keys) for item in value]
    return value
