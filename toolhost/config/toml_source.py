"""TOML text -> ``Doc``.

``tomllib`` parses (and validates) the text but keeps no positions, so a small scanner walks
the same text once more and records the line and column of every key, table header, array
element and inline-table entry. The scanner only runs on text tomllib accepted, so it can be
lenient; it understands tables, arrays of tables, dotted and quoted keys, inline tables,
multi-line arrays and all four string forms, which is what naming the right line needs.
"""

from __future__ import annotations

import bisect
import datetime
import json
import re
import sys
from typing import Any

from toolhost.config.limits import (
    LIMITS,
    MAX_DIGITS,
    check_finite,
    data_depth_path,
    toml_depth,
)
from toolhost.config.tree import Doc, Key, Mark, Path, format_path
from toolhost.errors import Problem
from toolhost.excerpt import cut

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["parse_toml"]

_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
_BARE = re.compile(r"[A-Za-z0-9_-]+")
_SCALAR_END = frozenset(",]}\n#")


def parse_toml(text: str, file: str, layer: str, problems: list[Problem]) -> Doc | None:
    """Parse ``text``; on a syntax error append a Problem and return None."""
    limit = LIMITS.depth
    deep = toml_depth(text, limit)
    if deep >= 0:  # tomllib recurses once per level: refuse before it runs out of stack
        line = text.count("\n", 0, deep) + 1
        problems.append(Problem(f"nested more than {limit} arrays or inline tables deep", file,
                                line, deep - (text.rfind("\n", 0, deep) + 1) + 1,
                                hint="raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant"))
        return None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _AT.search(message)
        line, col = (int(found[1]), int(found[2])) if found else (0, 0)
        message = _AT.sub("", message).strip()
        if "end of document" in message:  # name where the unclosed bracket or string opened
            line, col, still_open = _unclosed(text)
            message = message.replace("(at end of document)", "").strip()
            message += (" (this bracket or string is still open at the end of the file)"
                        if still_open else " (at the end of the file)")
        problems.append(Problem(f"invalid TOML: {cut(message, 300)}", file, line, col))
        return None
    except ValueError:  # int() refused a number of thousands of digits; tomllib says not where
        line, col = _long_number(text)
        problems.append(Problem(f"invalid TOML: a number of more than {MAX_DIGITS:,} digits",
                                file, line, col))
        return None
    deep_path = data_depth_path(data, limit)  # dotted keys and [a.b.c] headers nest too
    if deep_path is not None:
        problems.append(Problem(f"nested more than {limit} tables deep", file,
                                key_path=cut(format_path(deep_path), 200)))
        return None
    bad: list[tuple[Path, str]] = []
    doc = Doc(data=_plain(data, (), file, bad), file=file, layer=layer)
    doc.marks = _Scanner(text, file, layer).scan()
    for path, reason in bad:  # now that the scanner knows where each value is
        mark = doc.marks.get(path, Mark(file))
        problems.append(Problem(reason, file, mark.line, mark.column, format_path(path)))
    return doc if not bad else None


def _long_number(text: str) -> tuple[int, int]:
    found = re.search(rf"[0-9_]{{{MAX_DIGITS},}}", text)
    if found is None:
        return 0, 0
    at = found.start()
    return text.count("\n", 0, at) + 1, at - (text.rfind("\n", 0, at) + 1) + 1


def _unclosed(text: str) -> tuple[int, int, bool]:
    """Line and column of the outermost bracket or string still open at the end of ``text``
    (the last line when nothing is)."""
    opened: list[int] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif c in "\"'":
            quote = text[i:i + 3] if text.startswith(c * 3, i) else c
            j = i + len(quote)
            while j < n and not text.startswith(quote, j) and (len(quote) == 3 or text[j] != "\n"):
                j += 2 if c == '"' and text[j] == "\\" else 1
            if j >= n or not text.startswith(quote, j):
                opened.append(i)
                break
            i = j + len(quote)
            continue
        elif c in "[{":
            opened.append(i)
        elif c in "]}" and opened:
            opened.pop()
        i += 1
    at = opened[0] if opened else max(len(text.rstrip()) - 1, 0)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1, bool(opened)


def _plain(value: Any, path: Path, file: str, bad: list[tuple[Path, str]]) -> Any:
    """Dates and times become ISO strings: the model holds JSON-like data only; infinity and
    NaN are refused (``bad`` gets their paths). In place: tomllib's tables and arrays are
    new and ours, so only the values that change are written; a key path is built for a
    table or an array (to go into) and for a value that changes, not for every value."""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return _scalar(value, path, bad)
    for key, item in items:
        if isinstance(item, (dict, list)):
            _plain(item, (*path, key), file, bad)
        elif isinstance(item, (float, datetime.date, datetime.time)):
            value[key] = _scalar(item, (*path, key), bad)
    return value


def _scalar(value: Any, path: Path, bad: list[tuple[Path, str]]) -> Any:
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    reason = check_finite(value)
    if reason:
        bad.append((path, reason))
        return None
    return value


class _Scanner:
    def __init__(self, text: str, file: str, layer: str) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.file = file
        self.layer = layer
        self.newlines = [m.start() for m in re.finditer("\n", text)]
        self.marks: dict[Path, Mark] = {(): Mark(file, 1, 1, layer)}
        self.aot: dict[Path, int] = {}  # array-of-tables path -> index of its last table

    def mark(self, path: Path, at: int, *, keep: bool = False) -> None:
        if keep and path in self.marks:
            return
        line = bisect.bisect_left(self.newlines, at) + 1
        start = self.newlines[line - 2] + 1 if line > 1 else 0
        self.marks[path] = Mark(self.file, line, at - start + 1, self.layer)

    def scan(self) -> dict[Path, Mark]:
        table: Path = ()
        s = self.s
        while True:
            self.skip_blank(newlines=True)
            if self.i >= self.n:
                return self.marks
            if s[self.i] == "[":
                table = self.header()
            else:
                self.key_value(table)

    def header(self) -> Path:
        array = self.s.startswith("[[", self.i)
        self.i += 2 if array else 1
        self.skip_blank()
        at = self.i
        keys = self.keys()
        path: list[Key] = []
        for index, key in enumerate(keys):
            path.append(key)
            here = tuple(path)
            last = index == len(keys) - 1
            if last and array:
                self.mark(here, at, keep=True)
                position = self.aot.get(here, -1) + 1
                self.aot[here] = position
                path.append(position)
            elif here in self.aot:
                path.append(self.aot[here])
            else:
                self.mark(here, at, keep=not last)
        self.mark(tuple(path), at)
        self.skip_line()
        return tuple(path)

    def key_value(self, base: Path) -> None:
        at = self.i
        keys = self.keys()
        for end in range(1, len(keys)):
            self.mark(base + keys[:end], at, keep=True)
        path = base + keys
        self.mark(path, at)
        self.skip_blank()
        if self.i < self.n and self.s[self.i] == "=":
            self.i += 1
        self.skip_blank()
        self.value(path)

    def keys(self) -> tuple[str, ...]:
        out = []
        while self.i < self.n:
            out.append(self.simple_key())
            self.skip_blank()
            if self.i < self.n and self.s[self.i] == ".":
                self.i += 1
                self.skip_blank()
                continue
            break
        return tuple(out)

    def simple_key(self) -> str:
        s, i = self.s, self.i
        if s[i] in "\"'":
            start = i
            self.skip_string()
            raw = s[start + 1:self.i - 1]
            if s[start] == "'":
                return raw
            try:
                decoded: str = json.loads(f'"{raw}"')
                return decoded
            except ValueError:
                return raw
        found = _BARE.match(s, i)
        if not found:  # tomllib accepted the text, so this is unreachable in practice
            self.i += 1
            return s[i]
        self.i = found.end()
        return found.group()

    def value(self, path: Path) -> None:
        if self.i >= self.n:
            return
        c = self.s[self.i]
        if c in "\"'":
            self.skip_string()
        elif c == "[":
            self.i += 1
            index = 0
            while True:
                self.skip_blank(newlines=True)
                if self.i >= self.n or self.s[self.i] == "]":
                    self.i += 1
                    return
                if self.s[self.i] == ",":
                    self.i += 1
                    continue
                self.mark((*path, index), self.i)
                self.value((*path, index))
                index += 1
        elif c == "{":
            self.i += 1
            while True:
                self.skip_blank(newlines=True)
                if self.i >= self.n or self.s[self.i] == "}":
                    self.i += 1
                    return
                if self.s[self.i] == ",":
                    self.i += 1
                    continue
                self.key_value(path)
        else:
            while self.i < self.n and self.s[self.i] not in _SCALAR_END:
                self.i += 1

    def skip_string(self) -> None:
        s = self.s
        quote = s[self.i]
        triple = quote * 3
        if s.startswith(triple, self.i):
            end = self._closing(triple, self.i + 3)
            if end < 0:
                self.i = self.n
                return
            run = 3  # up to two quotes may end the content: '"""a"""""' is 'a""'
            while run < 5 and end + run < self.n and s[end + run] == quote:
                run += 1
            self.i = min(end + run, self.n)
            return
        end = self._closing(quote, self.i + 1)
        self.i = self.n if end < 0 else end + 1

    def _closing(self, delimiter: str, start: int) -> int:
        """Where the string's closing ``delimiter`` is (-1 if unclosed): the first one from
        ``start`` not escaped by a backslash (literal 'strings' have no escapes)."""
        end = start
        while True:
            end = self.s.find(delimiter, end)
            if end < 0 or delimiter[0] == "'" or not _escaped(self.s, end):
                return end
            end += 1

    def skip_blank(self, *, newlines: bool = False) -> None:
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c in " \t\r" or (newlines and c == "\n"):
                self.i += 1
            elif c == "#" and newlines:
                self.skip_line()
            else:
                return

    def skip_line(self) -> None:
        end = self.s.find("\n", self.i)
        self.i = self.n if end < 0 else end + 1


def _escaped(s: str, at: int) -> bool:
    """Whether the character at ``at`` is preceded by an odd number of backslashes."""
    count = 0
    while at - count - 1 >= 0 and s[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1
