"""Strict JSON from files and flags people hand toolhost: a lock, a client's config file,
``--input``/``--json`` arguments and their ``@FILE`` forms.

``parse_json`` refuses, with a line and column where it can, what ``json.loads`` lets through
or turns into an internal error:

- nesting deeper than ``max_depth`` (checked on the text before parsing, so nothing recurses);
- an integer of more than 4,000 digits (Python's own limit would raise a bare ValueError);
- ``NaN``, ``Infinity``, and a number too large for a float (``1e400``): not JSON, and a
  value written back would become ``Infinity``;
- the same key twice in one object (``json.loads`` keeps the last one silently).

``read_json_file`` reads a file with the config loader's guards first (``read_bounded``: a
regular file, a size cap, strict UTF-8), so a FIFO, ``/dev/zero`` or a directory is one
located line, never a hang or a swollen process.

``inert_json`` is the other way: JSON text toolhost prints (``tools --json``) with every
character a terminal acts on or a reader cannot see (what ``toolhost.visible`` escapes: C1
controls, DEL, bidi overrides, zero-width and other format characters, line separators,
lone surrogates) written as a JSON ``\\uXXXX`` escape. A program reads the same strings; a
person who cats the file sees the escape instead of a reordered or recoloured line.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from toolhost.config.limits import MAX_DIGITS, read_bounded, toml_depth
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["MAX_JSON_DEPTH", "JsonTextError", "inert_json", "key_position", "parse_json",
           "read_json_file"]

MAX_JSON_DEPTH = 256  # the wire's own bound (toolhost.limits.Limits.max_depth)


class JsonTextError(ValueError):
    """Text that is not acceptable JSON: ``message`` and, when known, where (1-based)."""

    def __init__(self, message: str, line: int = 0, column: int = 0, *,
                 syntax: bool = False) -> None:
        super().__init__(message)
        self.message, self.line, self.column = message, line, column
        self.syntax = syntax  # not JSON at all (rather than JSON refused: too deep, NaN...)

    def where(self) -> str:
        """``line L, column C`` (empty when not known)."""
        return f"line {self.line}, column {self.column}" if self.line else ""


class _Refused(ValueError):
    """Raised by the decoder's hooks: ``needle`` is the text to locate the value by."""

    def __init__(self, message: str, needle: str | re.Pattern[str]) -> None:
        super().__init__(message)
        self.message, self.needle = message, needle


def _integer(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise _Refused(f"an integer of {digits:,} digits (at most {MAX_DIGITS:,})", text)
    return int(text)


def _number(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _Refused(f"number {cut(text, 40)} is too large (JSON numbers here must fit a "
                       "64-bit float)", text)
    return value


_CONSTANT = re.compile(r"(?<![\w\"])-?(?:NaN|Infinity)\b")


def _constant(name: str) -> Any:
    raise _Refused(f"{name} is not JSON (JSON has no NaN or Infinity)", _CONSTANT)


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                shown = json.dumps(cut(key, 80), ensure_ascii=False)
                raise _Refused(f"the key {shown} appears twice in one object",
                               re.compile(re.escape(json.dumps(key)[:200]) + r"\s*:"))
            seen.add(key)
    return value


_decode = json.JSONDecoder(parse_int=_integer, parse_float=_number, parse_constant=_constant,
                           object_pairs_hook=_object).decode


def _line_column(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _locate(text: str, needle: str | re.Pattern[str], nth: int = 1) -> tuple[int, int]:
    """Where ``needle`` occurs (its ``nth`` time: a duplicate key is the second), or (0, 0):
    the decoder's hooks are not told where they are."""
    found = [m.start() for m in (needle.finditer(text) if isinstance(needle, re.Pattern)
                                 else re.finditer(re.escape(needle), text))][:nth]
    return _line_column(text, found[-1]) if len(found) == nth else (0, 0)


def key_position(text: str, *keys: str) -> tuple[int, int]:
    """Line and column of the value at the path ``keys`` in a JSON text that parsed (the
    last key's; a key of the top-level object, then of the object it holds, ...), for the
    located error of a value of the wrong type. Where the path ends early, the last key
    found; with none, the text's first character ((0, 0) for an empty text)."""
    if not text.strip():
        return 0, 0
    at = len(text) - len(text.lstrip())  # the top-level value
    for key in keys:
        found = _member(text, at, key)
        if found < 0:
            break
        at = found
    return _line_column(text, at)


_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SPACE = re.compile(r"[ \t\r\n]*")
_MARK = re.compile(r'["{}\[\]]')


def _member(text: str, at: int, key: str) -> int:
    """Offset of the key ``key`` of the object that is the value at ``at`` (``at`` on a
    value, or on a key: its value), or -1."""
    if text.startswith('"', at):  # a key: step over it and its colon to its value
        end = _STRING.match(text, at)
        if end is None:
            return -1
        at = _SPACE.match(text, end.end()).end()  # type: ignore[union-attr]
        if not text.startswith(":", at):
            return -1
        at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
    if not text.startswith("{", at):
        return -1
    depth, i = 0, at
    while (next_one := _MARK.search(text, i)) is not None:  # (numbers, words: skipped)
        i = next_one.start()
        char = text[i]
        if char == '"':
            string = _STRING.match(text, i)
            if string is None:
                return -1
            after = _SPACE.match(text, string.end()).end()  # type: ignore[union-attr]
            if depth == 1 and text.startswith(":", after) and \
                    json.loads(string.group()) == key:
                return i
            i = string.end()
            continue
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return -1
        i += 1
    return -1


def parse_json(text: str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """The value of ``text``, or ``JsonTextError`` (see the module docstring)."""
    deep = toml_depth(text, max_depth)  # JSON's strings are TOML's basic strings
    if deep >= 0:
        raise JsonTextError(f"nested more than {max_depth} arrays or objects deep",
                            *_line_column(text, deep))
    try:
        return _decode(text)
    except json.JSONDecodeError as exc:
        raise JsonTextError(exc.msg, exc.lineno, exc.colno, syntax=True) from None
    except _Refused as exc:
        duplicate = isinstance(exc.needle, re.Pattern) and exc.needle is not _CONSTANT
        raise JsonTextError(exc.message, *_locate(text, exc.needle, 2 if duplicate else 1)) \
            from None
    except RecursionError:  # unreachable after toml_depth; a net, not the mechanism
        raise JsonTextError("nested too deeply") from None


def read_json_file(path: str, problems: list[Problem], *, what: str, limit: int,
                   max_depth: int = MAX_JSON_DEPTH) -> tuple[str, Any] | None:
    """``(text, value)`` of the JSON file at ``path``; otherwise located Problems and None.

    Read as ``read_bounded`` reads configs (regular files only, at most ``limit`` bytes,
    strict UTF-8), then parsed by ``parse_json``."""
    text = read_bounded(path, problems, what, limit=limit, hint=f"a {what} is a JSON file")
    if text is None:
        return None
    try:
        return text, parse_json(text, max_depth=max_depth)
    except JsonTextError as exc:
        problems.append(Problem(f"not valid JSON: {exc.message}", os.fspath(path), exc.line,
                                exc.column))
        return None


def inert_json(text: str) -> str:
    """``text``, the output of ``json.dumps(..., ensure_ascii=False)``, with each character
    a terminal could act on or a reader could not see escaped JSON's way (the same value):
    ``toolhost.visible.inert_json``."""
    from toolhost.visible import inert_json as inert

    return inert(text)
