"""The audit log's arguments read as one flow: a secret cut between calls, or between the
keys and values of one call, is ``***`` in the log.

Each record's arguments are redacted string by string (``mask_arguments``). A model that
writes a secret a piece at a time (``{"text": "sk-live-9"}``, then ``"f8e7d6c5"``, then
``"b4a3921"``; or ``{"a": "sk-live-9", "b": "f8e7d6c5", "c": "b4a3921"}`` in one call) left
no piece long enough to be known by (the pieces finder needs 10 letters and digits), and a
person reading the log after an incident joins them. ``AuditFlow`` reads each record's
strings (its arguments' and its rewritten input's, keys and values, in the order the line
writes them) after the ones of the records before it in the same log (``KEEP``
characters), joined by line breaks, three ways: every string, the values alone and the keys
alone (a piece per key, or a piece per value between keys). Every part of a string that a
secret found there covers is ``***``; what the records before it showed stays (it is
written), at most the first pieces of a secret, fewer than 10 letters and digits of it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from toolhost.redaction import MASK, active
from toolhost.redaction.flow import HEAD, KEEP

__all__ = ["AuditFlow"]


class AuditFlow:
    """One audit log's flow: ``shown`` hides what a secret spread over its strings covers."""

    __slots__ = ("_lock", "_tails")

    def __init__(self) -> None:
        self._tails: tuple[str, ...] = ("", "", "")
        self._lock = threading.Lock()  # (records come from threads and the loop)

    def shown(self, value: Any) -> Any:
        """``value`` (a record's arguments, already redacted) with every part of its
        strings that a secret spread over them, or begun in the records before, covers as
        ``***``; its strings are what the next record is read after."""
        hide = active()
        if not hide:  # no secret known: nothing to hide, nothing to read later (a secret
            return value  # is known from a load on; what came before it is written anyway)
        leaves: list[tuple[str, bool]] = []  # (a string, whether it is a key), as written
        _leaves(value, leaves)
        if not leaves:
            return value
        texts = [text for text, _ in leaves]
        views = [[i for i, (_, key) in enumerate(leaves) if wanted is None or key is wanted]
                 for wanted in (None, False, True)]  # every string, the values, the keys
        with self._lock:  # each view is read after the same view of the records before
            befores = self._tails
            self._tails = tuple(_kept(before, [texts[i] for i in picked])
                                for before, picked in zip(befores, views, strict=True))
        cover: list[list[tuple[int, int]]] = [[] for _ in leaves]
        _covered(hide, [(before, [texts[i] for i in picked], picked)
                        for before, picked in zip(befores, views, strict=True) if picked],
                 cover)
        if not any(cover):
            return value
        shown = iter([_masked(text, spans) for text, spans in zip(texts, cover, strict=True)])
        return _replaced(value, shown)


def _kept(before: str, texts: list[str]) -> str:
    """The last ``KEEP`` characters of ``before`` and ``texts``, joined by line breaks."""
    if not texts:
        return before
    joined = "\n".join(texts)
    return (before + "\n" + joined)[-KEEP:] if before else joined[-KEEP:]


def _covered(hide: Any, views: list[tuple[str, list[str], list[int]]],
             cover: list[list[tuple[int, int]]]) -> None:
    """Adds to ``cover[which[i]]`` the parts of ``texts[i]`` that a secret found in a view's
    ``before`` and ``texts``, joined by line breaks, covers (only secrets that reach into
    ``texts``). The views are read in one text, one after the other (one search: each costs
    ~0.5 ms; a secret found across two views hides more, never less)."""
    parts: list[str] = []
    places: list[tuple[int, int, int]] = []  # (where a string starts, its length, its leaf)
    at = 0
    for before, texts, which in views:
        if before:
            parts.append(before)
            at += len(before) + 1
        for text, leaf in zip(texts, which, strict=True):
            head = text[:HEAD]  # (a bound: the flow's reach, as the session flow's)
            parts.append(head)
            places.append((at, len(head), leaf))
            at += len(head) + 1
    if not places:
        return
    for lo, hi in hide.spans("\n".join(parts)):
        for off, size, leaf in places:
            a, b = max(lo, off), min(hi, off + size)
            if a < b:
                cover[leaf].append((a - off, b - off))


def _masked(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return text
    out, pos = [], 0
    for a, b in sorted(spans):
        if b <= pos:
            continue
        if a > pos:
            out.append(text[pos:a])
        if not out or out[-1] != MASK:
            out.append(MASK)
        pos = max(pos, b)
    out.append(text[pos:])
    return "".join(out)


def _leaves(value: Any, out: list[tuple[str, bool]]) -> None:
    if isinstance(value, str):
        out.append((value, False))
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):
                out.append((key, True))
            _leaves(item, out)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _leaves(item, out)


def _replaced(value: Any, shown: Any) -> Any:
    if isinstance(value, str):
        return next(shown)
    if isinstance(value, Mapping):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            if isinstance(key, str):
                key = next(shown)
                if key in out:  # two keys hidden alike: both kept, told apart
                    n = 2
                    while f"{key}#{n}" in out:
                        n += 1
                    key = f"{key}#{n}"
            out[key] = _replaced(item, shown)
        return out
    if isinstance(value, (list, tuple)):
        return [_replaced(item, shown) for item in value]
    return value
