"""Descriptions from docstrings: the summary paragraph and per-parameter text.

Three common styles are understood: Google (``Args:`` then ``name (int): text``), NumPy
(``Parameters`` over a ``----------`` rule, then ``name : int`` and indented text) and reST
(``:param name: text`` or ``:param int name: text``).

Continuation lines are joined with single spaces.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field

__all__ = ["Docstring", "parse_docstring"]

_GOOGLE_SECTIONS = {"args", "arguments", "parameters", "params", "keyword args",
                    "keyword arguments"}
_GOOGLE_ITEM = re.compile(r"^(\*{0,2}[A-Za-z_][A-Za-z0-9_]*)\s*(\([^)]*\))?\s*:\s*(.*)$")
_REST_PARAM = re.compile(r"^:(?:param|parameter|arg|argument|key|keyword)\s+"
                         r"(?:[^:]*\s)?([A-Za-z_][A-Za-z0-9_]*)\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)"
                         r"\s*(?::.*)?$")


@dataclass(frozen=True)
class Docstring:
    """What a function's docstring says: its summary and its parameters' descriptions."""

    summary: str | None = None  # the first paragraph, lines joined
    params: dict[str, str] = field(default_factory=dict)


def _join(lines: list[str]) -> str:
    return " ".join(line.strip() for line in lines if line.strip())


def parse_docstring(doc: str | None) -> Docstring:
    """Split a docstring into its first paragraph and its parameter descriptions."""
    if not doc:
        return Docstring()
    lines = inspect.cleandoc(doc).splitlines()
    summary_lines: list[str] = []
    for line in lines:
        if not line.strip():
            break
        summary_lines.append(line)
    summary = _join(summary_lines) or None
    if summary and (summary.lower().rstrip(":") in _GOOGLE_SECTIONS or summary.startswith(":")):
        summary = None
    params: dict[str, str] = {}
    params.update(_rest(lines))
    params.update(_numpy(lines))
    params.update(_google(lines))
    return Docstring(summary=summary, params=params)


def _rest(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    current: str | None = None
    buf: list[str] = []
    for line in [*lines, ":end:"]:
        stripped = line.strip()
        if stripped.startswith(":") or not stripped:
            if current is not None:
                out[current] = _join(buf)
                current = None
            match = _REST_PARAM.match(stripped)
            if match:
                current, buf = match.group(1), [match.group(2)]
        elif current is not None:
            buf.append(stripped)
    return out


def _google(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    in_section = False
    item_indent: int | None = None
    current: str | None = None
    buf: list[str] = []

    def flush() -> None:
        nonlocal current
        if current is not None:
            out[current] = _join(buf)
            current = None

    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if stripped.lower().rstrip(":") in _GOOGLE_SECTIONS and stripped.endswith(":"):
            flush()
            in_section, item_indent = True, None
            continue
        if not in_section:
            continue
        if not stripped:
            continue
        if indent == 0:  # a new section (Returns:, Raises:, ...) or prose
            flush()
            in_section = False
            continue
        if item_indent is None:
            item_indent = indent
        match = _GOOGLE_ITEM.match(stripped)
        if indent == item_indent and match:
            flush()
            current, buf = match.group(1).lstrip("*"), [match.group(3)]
        elif current is not None:
            buf.append(stripped)
    flush()
    return out


def _numpy(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    i = 0
    while i < len(lines) - 1:
        header, rule = lines[i].strip().lower(), lines[i + 1].strip()
        is_params = header in {"parameters", "other parameters", "keyword arguments"}
        if not (is_params and rule and set(rule) == {"-"}):
            i += 1
            continue
        i += 2
        names: list[str] = []
        buf: list[str] = []
        while i < len(lines):
            line = lines[i]
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            if line.strip() and nxt and set(nxt) == {"-"}:
                break  # the next section starts
            if line.strip() and not line.startswith((" ", "\t")):
                for name in names:
                    out[name] = _join(buf)
                match = _NUMPY_ITEM.match(line.strip())
                names = [n.strip() for n in match.group(1).split(",")] if match else []
                buf = []
            elif line.strip():
                buf.append(line)
            i += 1
        for name in names:
            out[name] = _join(buf)
    return out
