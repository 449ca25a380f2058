"""``${VAR}`` values inside command and http templates stay text.

Interpolation runs on the config before the backends compile their templates, so a value
holding ``{{``, ``{%`` or ``{#`` (a CI branch name, a password with braces) would be read as
jinja: ``X='{{ 7*7 }}'`` in a command's argv passed ``49``, and ``{{ name }}`` added a param
the model fills. Each ``{`` a substituted value puts before ``{``, ``%`` or ``#`` is written as
``{{ '{' }}``, which renders one ``{``: the value reaches the program as it was set.

Only the fields the built-in kinds compile as templates are touched: a command's ``argv``,
``stdin`` and ``env`` values; an http tool's ``url``, ``query``, ``headers``, ``form`` and
``json`` strings; a server's ``base_url`` (joined onto each relative ``url`` before it is
compiled: there every ``{`` of a value is escaped, so a value cannot add a ``{name}``
param either). Everything else (a plugin kind's options, a description) is left as it is.

An http tool's ``select`` is a jinja *expression*, which no escaping keeps as text: a value
substituted into one (unless it is a JSON pointer, ``/a/b``) must be a plain dotted name
(``items``, ``data.0.id``), or the load fails at the key (:func:`select_problem`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toolhost.config.tree import Path
from toolhost.excerpt import cut

__all__ = ["TEMPLATE_FIELDS", "as_set", "escape_spans", "keep_values_as_text",
           "select_problem"]

TEMPLATE_FIELDS = {"command": ("argv", "stdin", "env"),
                   "http": ("url", "query", "headers", "form", "json")}
_BRACE = "{{ '{' }}"
_NAME = re.compile(r"[A-Za-z0-9_.]*")

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


def select_problem(block: Mapping[str, Any], here: Path,
                   substituted: Substituted) -> str | None:
    """Why the ``select`` of an http block at ``here`` holds a ``${VAR}`` value that would be
    read as jinja expression code; None when it holds none, or only plain dotted names."""
    select = block.get("select")
    found = substituted.get((*here, "select"))
    if not isinstance(select, str) or found is None or select.startswith("/"):
        return None
    for start, end in found[1]:
        value = select[max(start, 0):max(end, 0)]
        if not _NAME.fullmatch(value) or "__" in value:
            return ("a ${...} value here would be run as jinja expression code (select is an "
                    "expression, not text): write the expression itself, a JSON pointer "
                    "(/items/0) whose parts come from ${...}, or a value of plain names "
                    f"and dots (got {cut(repr(value), 60)})")
    return None


def escape_spans(text: str, spans: tuple[tuple[int, int], ...], *,
                 every: bool = False) -> str:
    """``text`` with each ``{`` inside ``spans`` that opens jinja syntax (followed by ``{``,
    ``%`` or ``#``; with ``every``, each ``{``) written so that it renders as itself."""
    inside = bytearray(len(text))
    for start, end in spans:
        start, end = max(start, 0), min(end, len(text))
        if end > start:
            inside[start:end] = b"\x01" * (end - start)
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == "{" and inside[i] and (every or (i + 1 < len(text) and text[i + 1] in "{%#")):
            out.append(_BRACE)
        else:
            out.append(ch)
    return "".join(out)


def as_set(text: str) -> str:
    """The inverse of :func:`escape_spans`: a template field's text as its ``${VAR}`` values
    were set (for checks that look at the values, such as the argv-secret warning)."""
    return text.replace(_BRACE, "{")
