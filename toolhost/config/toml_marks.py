"""Where each key, table header, array element and inline-table entry of a TOML text was
written: ``tomllib`` keeps no positions, so this scanner walks the text it accepted once more.

It only runs on text tomllib accepted, so it can be lenient; it understands tables, arrays of
tables, dotted and quoted keys, inline tables, multi-line arrays and all four string forms,
which is what naming the right line needs.
"""

from __future__ import annotations

import bisect
import json
import re

from toolhost.config.tree import Key, Mark, Path

__all__ = ["scan_marks"]

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_BARE_KEYS = re.compile(r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*[ \t\r]*")
_SCALAR_END = frozenset(",]}\n#")
_new_tuple = tuple.__new__


def scan_marks(text: str, file: str, layer: str) -> dict[Path, Mark]:
    """Key path -> mark of every node of ``text`` (which ``tomllib`` accepted)."""
    return _Scanner(text, file, layer).scan()


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
        marks = self.marks
        if keep and path in marks:
            return
        newlines = self.newlines
        line = bisect.bisect_left(newlines, at) + 1
        start = newlines[line - 2] + 1 if line > 1 else 0
        # built as the tuple it is: a big file has tens of thousands
        marks[path] = _new_tuple(Mark, (self.file, line, at - start + 1, self.layer))

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
        s, n = self.s, self.n
        # the usual key, bare names joined by dots (`command`, `servers.big.tools.t0`), in
        # one match; anything else (quotes, blanks around a dot) takes the loop below
        found = _BARE_KEYS.match(s, self.i)
        if found is not None and (found.end() >= n or s[found.end()] != "."):
            self.i = found.end()
            return tuple(found.group().rstrip(" \t\r").split("."))
        out = []
        while self.i < n:
            out.append(self.simple_key())
            if self.i < n and s[self.i] in " \t\r":  # most keys: `key =` or `key]`
                self.skip_blank()
            if self.i < n and s[self.i] == ".":
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
            s, n = self.s, self.n
            while True:
                self.skip_blank(newlines=True)
                i = self.i
                if i >= n or s[i] == "]":
                    self.i = i + 1
                    return
                if s[i] == ",":
                    self.i = i + 1
                    continue
                here = (*path, index)
                self.mark(here, i)
                self.value(here)
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
        # the hottest loop of the scan: the offset is kept in a local until it stops
        s, i, n = self.s, self.i, self.n
        blanks = " \t\r\n" if newlines else " \t\r"
        while i < n:
            c = s[i]
            if c in blanks:
                i += 1
            elif c == "#" and newlines:
                end = s.find("\n", i)
                i = n if end < 0 else end + 1
            else:
                break
        self.i = i

    def skip_line(self) -> None:
        end = self.s.find("\n", self.i)
        self.i = self.n if end < 0 else end + 1


def _escaped(s: str, at: int) -> bool:
    """Whether the character at ``at`` is preceded by an odd number of backslashes."""
    count = 0
    while at - count - 1 >= 0 and s[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1
