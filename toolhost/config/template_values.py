"""``${VAR}`` values inside command and http templates stay text.

Interpolation runs on the config before the backends compile their templates, so a value
holding ``{{``, ``{%`` or ``{#`` (a CI branch name, a password with braces) would be read as
jinja: ``X='{{ 7*7 }}'`` in a command's argv passed ``49``, and ``{{ name }}`` added a param
the model fills. Each ``{`` a substituted value puts before ``{``, ``%`` or ``#`` is written as
``{{ '{' }}``, which renders one ``{``: the value reaches the program as it was set.

Only the fields the built-in kinds compile as templates are touched: a command's ``argv``,
``stdin`` and ``env`` values; an http tool's ``url``, ``query``, ``headers``, ``form`` and
``json`` strings. Everything else (a plugin kind's options, a description) is left as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.config.tree import Path

__all__ = ["TEMPLATE_FIELDS", "as_set", "keep_values_as_text"]

TEMPLATE_FIELDS = {"command": ("argv", "stdin", "env"),
                   "http": ("url", "query", "headers", "form", "json")}
_BRACE = "{{ '{' }}"

Substituted = Mapping[Path, tuple[str, tuple[tuple[int, int], ...]]]


def keep_values_as_text(kind: str, block: dict[str, Any], here: Path,
                        shorthand: str | None, substituted: Substituted) -> dict[str, Any]:
    """``block`` (the options of a ``kind`` backend at config path ``here``; ``shorthand``:
    the key a non-mapping block was expanded to) with substituted values escaped in its
    template fields. Returns ``block`` itself when nothing needed it."""
    fields = TEMPLATE_FIELDS.get(kind)
    if not fields or not substituted:
        return block
    out = dict(block)
    for key in fields:
        if key in block:
            path = here if key == shorthand else (*here, key)
            out[key] = _walk(block[key], path, substituted, 0)
    return out


def _walk(value: Any, path: Path, substituted: Substituted, depth: int) -> Any:
    if isinstance(value, str):
        found = substituted.get(path)
        return value if found is None else escape_spans(value, found[1])
    if depth > 64:  # the loader bounds nesting far below this
        return value
    if isinstance(value, dict):
        return {k: _walk(v, (*path, k), substituted, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_walk(v, (*path, i), substituted, depth + 1) for i, v in enumerate(value)]
    return value


def escape_spans(text: str, spans: tuple[tuple[int, int], ...]) -> str:
    """``text`` with each ``{`` inside ``spans`` that opens jinja syntax (followed by ``{``,
    ``%`` or ``#``) written so that it renders as itself."""
    inside = bytearray(len(text))
    for start, end in spans:
        start, end = max(start, 0), min(end, len(text))
        if end > start:
            inside[start:end] = b"\x01" * (end - start)
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == "{" and inside[i] and i + 1 < len(text) and text[i + 1] in "{%#":
            out.append(_BRACE)
        else:
            out.append(ch)
    return "".join(out)


def as_set(text: str) -> str:
    """The inverse of :func:`escape_spans`: a template field's text as its ``${VAR}`` values
    were set (for checks that look at the values, such as the argv-secret warning)."""
    return text.replace(_BRACE, "{")
