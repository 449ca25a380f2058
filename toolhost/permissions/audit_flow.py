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
from collections.abc import Collection
from typing import Any

from toolhost.redaction import MASK, active
from toolhost.redaction.flow import HEAD, KEEP
from toolhost.redaction.leaves import replaced, strings

__all__ = ["AuditFlow"]


class AuditFlow:
    """One audit log's flow: ``shown`` hides what a secret spread over its strings covers."""

    __slots__ = ("_lock", "_tails")

    def __init__(self) -> None:
        self._tails: tuple[str, ...] = ("", "", "", "")
        self._lock = threading.Lock()  # (records come from threads and the loop)

    def shown(self, fields: list[Any], inputs: Collection[int] = ()) -> list[Any]:
        """``fields`` (a record's fields, already redacted) with every part of their
        strings that a secret spread over them, or begun in the records before, covers as
        ``***`` (``fields`` itself when nothing is); their strings are what the next
        record is read after. Read four ways: every field's strings, and the strings of the
        fields at ``inputs`` (a call's arguments: a piece per call sits between the tool
        names of the records), their values and their keys."""
        hide = active()
        if not hide:  # no secret known: nothing to hide, nothing to read later (a secret
            return fields  # is known from a load on; what came before it is written anyway)
        texts: list[str] = []  # every string, keys too, as the line writes them
        keys: list[bool] = []  # whether each is a key
        given: list[bool] = []  # whether each is a call's input's
        for at, field in enumerate(fields):
            strings(field, texts, keys)
            given += [at in inputs] * (len(texts) - len(given))
        if not texts:
            return fields
        views = [list(range(len(texts)))] + [
            [i for i, key in enumerate(keys) if given[i] and (wanted is None or key is wanted)]
            for wanted in (None, False, True)]  # every string; the inputs', values, keys
        with self._lock:  # each view is read after the same view of the records before
            befores = self._tails
            self._tails = tuple(_kept(before, [texts[i] for i in picked])
                                for before, picked in zip(befores, views, strict=True))
        cover: list[list[tuple[int, int]]] = [[] for _ in texts]
        _covered(hide, [(before, [texts[i] for i in picked], picked)
                        for before, picked in zip(befores, views, strict=True) if picked],
                 cover)
        if not any(cover):
            return fields
        shown = iter([_masked(text, spans) for text, spans in zip(texts, cover, strict=True)])
        return [replaced(field, shown, keys=True) for field in fields]


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
