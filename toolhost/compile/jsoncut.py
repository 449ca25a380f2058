"""JSON of a tool's result, never longer than what will be kept.

A tool returning 200 MB worth of dicts used to be serialised whole (twice: into text and into
``structuredContent``) on the event loop, holding every other call up for seconds, only for
all but 40,000 characters to be cut away. Here the size is measured first, by a walk that
stops as soon as the value is known to be too long (it counts a lower bound: every string's
length plus its quotes, one character per number, the brackets, colons and commas), and a value
that is too long is encoded lazily, chunk by chunk, only as far as the part that is kept.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import itertools
import json
import math
from collections.abc import AsyncIterator, Collection, Iterator, Mapping
from typing import Any

__all__ = ["MAX_DEPTH", "MAX_ITEMS", "TooDeep", "as_list", "json_head", "plain", "too_long"]

MAX_DEPTH = 500  # deeper results are refused (json and the model cannot use them anyway)


class TooDeep(ValueError):
    """The value nests deeper than ``MAX_DEPTH``."""


def json_why(exc: BaseException) -> str:
    """Why ``json.loads`` refused a text, in one line (a ``RecursionError`` is nesting; an
    integer past Python's conversion limit is said as such, not as invalid JSON)."""
    if isinstance(exc, RecursionError):
        return "it nests too deeply to be read"
    text = str(exc)
    if isinstance(exc, ValueError) and text.startswith("Exceeds the limit ("):
        import sys

        return (f"it holds an integer of more than {sys.get_int_max_str_digits():,} digits, "
                "which toolhost does not read")
    return text.splitlines()[0] if text else type(exc).__name__


def non_finite(value: Any) -> str | None:
    """Where ``value`` holds a number JSON cannot carry (NaN, Infinity: a float such as
    ``1e400`` reads as one), as ``"NaN at a.b[2]"``, or None. Walks at most ``MAX_DEPTH``
    levels (only after an encoder refused the value, never per call)."""
    todo: list[tuple[Any, str, int]] = [(value, "", 0)]
    while todo:
        item, where, depth = todo.pop()
        if isinstance(item, float) and not math.isfinite(item):
            name = "NaN" if math.isnan(item) else ("-Infinity" if item < 0 else "Infinity")
            return f"{name} at {where or 'the top'}"
        if depth >= MAX_DEPTH:
            continue
        if isinstance(item, Mapping):
            todo.extend((v, f"{where}.{k}" if where else str(k), depth + 1)
                        for k, v in reversed(list(item.items())))
        elif isinstance(item, (list, tuple)):
            todo.extend((v, f"{where}[{i}]", depth + 1)
                        for i, v in reversed(list(enumerate(item))))
    return None


MAX_ITEMS = 1_000_000  # of a view or range in a result: far past any result's limit
_NOT_SEQUENCES = (str, bytes, bytearray, memoryview, Mapping)


def as_list(value: Any) -> list[Any] | None:
    """A collection that is not a list, tuple, set or mapping (``dict.keys()`` and the other
    views, ``range``, ``deque``, ``array``) as a list of at most ``MAX_ITEMS`` items; None for
    anything else. A one-time iterator (a generator) is a ``TypeError``: the size walk would
    read it and leave nothing for the encoder."""
    if isinstance(value, Iterator) and not isinstance(value, _NOT_SEQUENCES):
        raise TypeError(f"the result holds a one-time iterator ({type(value).__name__}) "
                        "inside it: return a list")
    if isinstance(value, AsyncIterator):
        raise TypeError(f"the result holds an async iterator ({type(value).__name__}) "
                        "inside it: return a list")
    if isinstance(value, (list, tuple, set, frozenset, *_NOT_SEQUENCES)):
        return None
    if isinstance(value, Collection):
        return list(itertools.islice(value, MAX_ITEMS))
    return None


def plain(value: Any) -> Any:
    """One level of a dataclass, pydantic model, set, view or enum as JSON-able data (what
    ``json`` calls for values it does not know); anything else as its ``str``."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # a pydantic model, by its aliases as its outputSchema names them
        if hasattr(type(value), "__pydantic_fields__"):  # pydantic 2: its own dump
            return dump(mode="json", by_alias=True)
        return dump(mode="json")
    if isinstance(value, (bytes, bytearray)):  # as a bytes parameter takes it: base64
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if (listed := as_list(value)) is not None:
        return listed
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, enum.Enum):
        return value.value
    return str(value)


_KNOWN = (str, int, float, bool, Mapping, list, tuple, set, frozenset)


def _children(value: Any) -> Iterator[Any] | None:
    """The parts of a container (keys as strings), or None for a leaf (``_KNOWN`` values)."""
    if isinstance(value, Mapping):
        return (part for k, v in value.items() for part in (str(k), v))
    if isinstance(value, (list, tuple, set, frozenset)):
        return iter(value)
    return None


def too_long(value: Any, limit: int) -> bool:
    """True when the compact JSON of ``value`` certainly has more than ``limit`` characters.

    Stops walking once that is known, so its cost is bounded by ``limit``, not by the value.
    Raises ``TooDeep`` for a value nested deeper than ``MAX_DEPTH``.
    """
    size = 0
    stack: list[Iterator[Any]] = []
    started: list[bool] = []  # per open container: has a part been counted (then: a comma)
    item: Any = value
    while True:
        if not isinstance(item, _KNOWN) and item is not None:
            item = plain(item)  # a dataclass, model, enum... as json will see it
        if isinstance(item, str):
            size += len(item) + 2  # and its quotes
        else:
            children = _children(item)
            size += 1 if children is None else 2  # a digit at least, or the brackets
            if children is not None:
                if len(stack) >= MAX_DEPTH:
                    raise TooDeep(f"the result is nested more than {MAX_DEPTH} levels deep")
                stack.append(children)
                started.append(False)
        if size > limit:
            return True
        while stack:
            item = next(stack[-1], _END)
            if item is not _END:
                size += started[-1]  # a comma or a colon before every part but the first
                started[-1] = True
                break
            stack.pop()
            started.pop()
        else:
            return False


_END = object()


def json_head(value: Any, limit: int) -> str:
    """The first ``limit`` characters of the compact JSON of ``value``, encoding no further
    than that (for a value ``too_long`` said is too long)."""
    encoder = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=plain,
                               check_circular=True)
    chunks: list[str] = []
    size = 0
    # iterencode (not _one_shot) is the lazy pure-Python encoder: it stops when we do.
    try:
        for chunk in encoder.iterencode(value):
            chunks.append(chunk)
            size += len(chunk)
            if size >= limit:
                break
    except (TypeError, ValueError, RecursionError) as exc:  # e.g. a key json cannot write
        chunks.append(f"… (toolhost could not encode the rest: {type(exc).__name__})")
    return "".join(chunks)[:limit]
