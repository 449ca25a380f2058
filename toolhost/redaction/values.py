"""Redacting JSON-like values: every string, key and number of a value, a secret spread over
the items of a list or the text blocks of a result, and tool arguments as shown to people.

``redact_strings`` walks a value with one ``Redactor``'s ``redact`` (``scrub_value``, in
``toolhost.redaction.process``, with the process's); ``mask_arguments`` also hides the value
of every secret-named argument (``SECRET_KEY``), whatever it holds.
"""

from __future__ import annotations

import bisect
import functools
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from toolhost.redaction.marks import MASK, SECRET_KEY

if TYPE_CHECKING:
    from toolhost.redaction.redactor import Redactor

__all__ = ["BINARY_KEYS", "across_blocks", "across_leaves", "mask_arguments", "redact_strings",
           "secret_key"]

# Keys of MCP content holding base64 (images, audio, blobs): left as they are, never redacted
BINARY_KEYS = frozenset({"data", "blob"})


def redact_strings(value: Any, redact: Callable[[str], str],
                   keep: frozenset[str] = frozenset()) -> Any:
    """A copy of ``value`` (JSON-like) with ``redact`` applied to every string, keys too; a
    number whose JSON text shows a secret (a PIN, an account number) becomes ``***``. The
    values of keys in ``keep`` (binary ``data``, say) are left as they are."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {redact(k) if isinstance(k, str) else k:
                v if k in keep else redact_strings(v, redact, keep) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return _across_items(value, [redact_strings(v, redact, keep) for v in value], redact)
    return _number(value, redact)


def _across_items(items: Any, shown: list[Any], redact: Callable[[str], str]) -> list[Any]:
    """``shown`` (the items of a list, each redacted), with the parts of a secret hidden
    where the list has it over several items: strings one line per item (``stdout: lines``,
    a file read as lines: a secret that holds line breaks, or one in base64 wrapped over
    lines) or in pieces (``["sk-live-", "9f8e..."]``, a list of its characters); numbers
    (its bytes or code points: ``[115, 107, 45, ...]``, as the text of the same result
    showed ``[***]``) become ``***``."""
    hide = _redactor(redact)
    if hide is None or hide._pattern is None or len(items) < 2:
        return shown
    if all(isinstance(item, Mapping) for item in items):
        return across_blocks(items, shown, redact)
    if all(isinstance(item, str) for item in items):
        from toolhost.redaction.wrapped import wrapped_spans

        text = "\n".join(items)
        found = (hide.spans(text) if hide.multiline
                 else list(wrapped_spans(text, hide._pattern.spans)))
        shown = _hidden(items, shown, found, 1, hide)
        return _hidden(items, shown, hide.spans("".join(items)), 0, hide)
    if all(type(item) is int for item in items):
        text = ", ".join(map(str, items))
        found = hide.spans(text)
        return _hidden([str(item) for item in items], shown, found, 2, None) if found \
            else shown
    return shown


def across_blocks(blocks: Any, shown: list[Any], redact: Callable[[str], str]) -> list[Any]:
    """``shown`` (content blocks, each redacted on its own) with a secret hidden where the
    ``text`` of several blocks holds it between them (a tool that returns its token in
    three text blocks of 8 characters: no block held enough of it to be known)."""
    texts = [i for i, block in enumerate(blocks)
             if isinstance(block, Mapping) and isinstance(block.get("text"), str)
             and isinstance(shown[i], Mapping) and isinstance(shown[i].get("text"), str)]
    if len(texts) < 2:
        return shown
    hidden = _across_items([blocks[i]["text"] for i in texts],
                           [shown[i]["text"] for i in texts], redact)
    shown = list(shown)
    for i, text in zip(texts, hidden, strict=True):
        if text != shown[i]["text"]:
            shown[i] = {**shown[i], "text": text}
    return shown


def across_leaves(value: Any, shown: Any, redact: Callable[[str], str]) -> Any:
    """``shown`` (``value`` redacted by ``redact_strings``) with a secret hidden where the
    strings of ``value``, in their order, hold it between them: an object's values
    (``{"a": "sk-live-", "b": "9f8e7d6c", ...}``), nested too. One pass over them joined,
    not one per object (a result of 10,000 rows)."""
    raw: list[str] = []
    seen: list[Any] = []
    if not _leaves(value, shown, raw, seen) or len(raw) < 2:
        return shown
    hidden = _across_items(raw, list(seen), redact)
    if hidden == seen:
        return shown
    return _replaced(shown, iter(hidden))


def _leaves(value: Any, shown: Any, raw: list[str], seen: list[Any]) -> bool:
    """The strings of ``value`` (``raw``) and of ``shown`` (``seen``) in order; False if
    the two are not the same shape (two keys hidden as one)."""
    if isinstance(value, str):
        if isinstance(shown, str):
            raw.append(value)
            seen.append(shown)
        return True
    if isinstance(value, Mapping):
        if not isinstance(shown, Mapping) or len(shown) != len(value):
            return False
        return all(_leaves(v, s, raw, seen) for v, s in zip(value.values(), shown.values(),
                                                            strict=True))
    if isinstance(value, (list, tuple)):
        if not isinstance(shown, list) or len(shown) != len(value):
            return False
        return all(_leaves(v, s, raw, seen) for v, s in zip(value, shown, strict=True))
    return True


def _replaced(shown: Any, hidden: Any) -> Any:
    if isinstance(shown, str):
        return next(hidden)
    if isinstance(shown, Mapping):
        return {key: _replaced(item, hidden) for key, item in shown.items()}
    if isinstance(shown, list):
        return [_replaced(item, hidden) for item in shown]
    return shown


def _redactor(redact: Callable[[str], str]) -> Redactor | None:
    """The ``Redactor`` whose ``redact`` this is (or that is called), else None."""
    # looked up, not imported: ``Redactor.value`` imports this module (no Redactor exists
    # before its module is loaded)
    module = sys.modules.get("toolhost.redaction.redactor")
    hide = getattr(redact, "__self__", redact)
    return hide if module is not None and isinstance(hide, module.Redactor) else None


def _hidden(items: list[str], shown: list[Any], found: list[tuple[int, int]], sep: int,
            hide: Redactor | None) -> list[Any]:
    """``shown`` with the parts of ``items`` that the spans ``found`` in their text (joined
    with ``sep`` characters between them) cover over two items or more hidden: a string's
    part as ``***`` (the rest redacted again), a number (``hide`` None) as ``***``."""
    if not found:
        return shown
    starts, at = [], 0
    for item in items:
        starts.append(at)
        at += len(item) + sep
    covered: dict[int, list[tuple[int, int]]] = {}
    for start, end in found:
        first = bisect.bisect_right(starts, start) - 1
        last = bisect.bisect_right(starts, end - 1) - 1
        for i in range(first, last + 1) if last > first else ():
            covered.setdefault(i, []).append((max(start - starts[i], 0),
                                              min(end - starts[i], len(items[i]))))
    for i, parts in covered.items():
        if hide is None:
            shown[i] = MASK
            continue
        pieces: list[str] = []
        pos = 0
        for start, end in parts:
            pieces += (hide.redact(items[i][pos:start]), MASK)
            pos = max(pos, end)
        shown[i] = "".join(pieces) + hide.redact(items[i][pos:])
    return shown


def _number(value: Any, redact: Callable[[str], str]) -> Any:
    # JSON writes an int as str() does and a float as repr() does (bools are not numbers)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            text = int.__repr__(value) if isinstance(value, int) else float.__repr__(value)
        except ValueError:  # an int too long to write out (JSON cannot carry it either)
            return value
        if redact(text) != text:
            return MASK
    return value


def mask_arguments(value: Any, redact: Callable[[str], str] = lambda s: s) -> Any:
    """Tool arguments as shown to people (audit log, ask prompt, ``run`` transcript, ``call``):
    ``redact`` applied to every string, and the value of every secret-named key (at any depth;
    see ``SECRET_KEY``) is ``***``, whatever it is, unless it is null or empty."""
    kind = type(value)  # exact types first: an ABC isinstance costs more than the rest
    if kind is str:
        return redact(value)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        return {redact(str(k)): MASK if secret_key(str(k)) and v not in (None, "")
                else mask_arguments(v, redact) for k, v in value.items()}
    if kind is list or isinstance(value, tuple):
        return [mask_arguments(v, redact) for v in value]
    return redact(value) if isinstance(value, str) else _number(value, redact)


@functools.lru_cache(maxsize=4096)
def secret_key(key: str) -> bool:
    # Argument names repeat call after call: the regex runs once per distinct name.
    return SECRET_KEY.search(key) is not None
