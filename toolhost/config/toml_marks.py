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
from collections.abc import Sequence

from toolhost.config.tree import Key, Mark, Path

__all__ = ["scan_marks"]

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_BARE_KEYS = re.compile(r"[A-Za-z0-9_-]++(?:\.[A-Za-z0-9_-]++)*+[ \t\r]*+")

# The usual statement on one line, in one match: `[bare.keys]` (or `[[...]]`), and `bare.keys =`
# a string or scalar, a one-line array of them, or a one-line inline table of `bare = them`.
# Anything else (quoted keys, multi-line strings or arrays, nesting) takes the loop below,
# from the same place; a statement matched here is marked as the loop marks it.
_K = r"[A-Za-z0-9_-]++(?:\.[A-Za-z0-9_-]++)*+"
_WORD = r"""[^,\]}\n#"'\[{ \t\r]++"""  # a scalar: words, a blank between (a date and time)
_ELEM = rf"""(?>"(?:[^"\\\n]++|\\.)*+"|'[^'\n]*+'|{_WORD}(?:[ \t]++{_WORD})*+)"""  # atomic: linear
_END = r"(?=[ \t\r]*(?:#[^\n]*)?(?:\n|\Z))"
_BLANK = re.compile(r"(?:[ \t\r\n]++|#[^\n]*+)*+")
_BLANK_LINE = re.compile(r"[ \t\r]*(?:#[^\n]*)?(?:\n|\Z)")
# blanks, newlines and comments (atomic: never given back), then a header or a statement
_STATEMENT = re.compile(rf"(?:[ \t\r\n]++|#[^\n]*+)*+(?:\[(\[)?[ \t]*({_K})[ \t]*\]"
                        rf"|({_K})[ \t]*=[ \t]*(?:{_ELEM}{_END}|([\[{{])[ \t]*))")
# an array's element or an inline table's entry, and what follows it: `,`, `]` or `}`
_ITEM = re.compile(rf"(?:({_K})[ \t]*=[ \t]*)?{_ELEM}[ \t]*([,\]}}])[ \t]*")
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
        self.lines = _Lines(text)
        self.marks: dict[Path, Mark] = {(): Mark(file, 1, 1, layer)}
        self.aot: dict[Path, int] = {}  # array-of-tables path -> index of its last table
        self.parents: dict[tuple[str, ...], Path] = {}  # a header's parent keys -> its path

    def mark(self, path: Path, at: int, *, keep: bool = False) -> None:
        marks = self.marks
        if keep and path in marks:
            return
        line, start = self.lines.where(at)
        # built as the tuple it is: a big file has tens of thousands
        marks[path] = _new_tuple(Mark, (self.file, line, at - start + 1, self.layer))

    def scan(self) -> dict[Path, Mark]:
        table: Path = ()
        s, n = self.s, self.n
        blank, statement = _BLANK.match, _STATEMENT.match
        while True:
            found = statement(s, self.i)
            if found is None:  # the end, or a statement for the loop
                skipped = blank(s, self.i)  # blanks, newlines and comments: always matches
                assert skipped is not None
                i = self.i = skipped.end()
                if i >= n:
                    return self.marks
                if s[i] == "[":
                    table = self.header()
                else:
                    self.key_value(table)
            elif found[2] is not None:
                table = self.table(found[2].split("."), found.start(2), found[1] is not None)
                self.i = found.end()
                self.skip_line()
            elif not self.line(table, found):
                self.i = found.start(3)
                self.key_value(table)

    def header(self) -> Path:
        array = self.s.startswith("[[", self.i)
        self.i += 2 if array else 1
        self.skip_blank()
        at = self.i
        path = self.table(self.keys(), at, array)
        self.skip_line()
        return path

    def table(self, keys: Sequence[str], at: int, array: bool) -> Path:
        """Mark a table header's keys (written at ``at``); the table's path."""
        written = tuple(keys[:-1])
        parent = self.parents.get(written)  # `[servers.big.tools.t1]` after `...t0]`
        if parent is None:
            parent = self.parents[written] = self.parent(written, at)
        here = (*parent, keys[-1])
        aot = self.aot
        if array:
            self.mark(here, at, keep=True)
            position = aot.get(here, -1) + 1
            aot[here] = position
            self.parents.clear()  # the paths below an array's tables change with each
            path = (*here, position)
        elif here in aot:
            path = (*here, aot[here])
        else:
            path = here
        self.mark(path, at)
        return path

    def parent(self, written: tuple[str, ...], at: int) -> Path:
        """The path of a header's keys but its last (their own marks kept if made)."""
        path: list[Key] = []
        for key in written:
            path.append(key)
            here = tuple(path)
            if here in self.aot:
                path.append(self.aot[here])
            else:
                self.mark(here, at, keep=True)
        return tuple(path)

    def line(self, base: Path, found: re.Match[str]) -> bool:
        """Mark a statement ``_STATEMENT`` matched: its keys, and its one-line array's elements
        or inline table's keys, as ``key_value`` would; False (nothing marked) when the
        array or table is more than that (nested, or over lines)."""
        s, at, end = self.s, found.start(3), found.end()
        marks, file, layer = self.marks, self.file, self.layer
        keys = tuple(found[3].split("."))
        path = base + keys
        items: list[tuple[Path, int]] = []
        close = ""
        if found[4]:  # `[` or `{`: its items, up to the closing one
            close = "]" if found[4] == "[" else "}"
            while True:
                if end >= self.n:
                    return False
                if s[end] == close:  # `[]`, or after a last comma
                    end += 1
                    break
                item = _ITEM.match(s, end)
                if item is None or (close == "]") != (item[1] is None):
                    return False
                if close == "]":
                    items.append(((*path, len(items)), item.start()))
                else:
                    inner = tuple(item[1].split("."))
                    items += [(path + inner[:cut], item.start()) for cut in range(1, len(inner))]
                    items.append((path + inner, -1 - item.start()))  # < 0: overwrites
                if item[2] != ",":
                    if item[2] != close:
                        return False
                    end = item.end(2)
                    break
                end = item.end()
            if _BLANK_LINE.match(s, end) is None:
                return False
        number, start = self.lines.where(at)
        start -= 1  # a column is `offset - start`
        for cut in range(1, len(keys)):
            if base + keys[:cut] not in marks:
                marks[base + keys[:cut]] = _new_tuple(Mark, (file, number, at - start, layer))
        marks[path] = _new_tuple(Mark, (file, number, at - start, layer))
        for here, offset in items:
            if offset < 0:
                marks[here] = _new_tuple(Mark, (file, number, -1 - offset - start, layer))
            elif close == "]" or here not in marks:
                marks[here] = _new_tuple(Mark, (file, number, offset - start, layer))
        self.i = end
        return True

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
            elif c == "#" and newlines:  # a run of comment and blank lines in one match
                i = _skip_blank(s, i)
            else:
                break
        self.i = i

    def skip_line(self) -> None:
        end = self.s.find("\n", self.i)
        self.i = self.n if end < 0 else end + 1


class _Lines:
    """The line of an offset and where that line starts, counted (in C) from the offset
    asked before: marks are asked in the order of the text, nearly always. A table of every
    line break cost ~0.2 us a line in Python (16 MiB of comment lines: 1.5 s, 64 MB)."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.at, self.line, self.start = 0, 1, 0
        # a step back starts again from the last of these before it (one each 64 KiB)
        self.points: list[int] = [0]
        self.states: list[tuple[int, int]] = [(1, 0)]

    def where(self, at: int) -> tuple[int, int]:
        """(line, offset where it starts) of offset ``at``."""
        if at < self.at:
            i = bisect.bisect_right(self.points, at) - 1
            self.at = self.points[i]
            self.line, self.start = self.states[i]
        count = self.s.count("\n", self.at, at)
        if count:
            self.line += count
            self.start = self.s.rfind("\n", self.at, at) + 1
        self.at = at
        if at - self.points[-1] >= 65536:
            self.points.append(at)
            self.states.append((self.line, self.start))
        return self.line, self.start


def _skip_blank(s: str, i: int) -> int:
    """Past the blanks, line breaks and comments at ``i`` (16 MiB of comment lines inside an
    array took a Python step a line: 1.4 s)."""
    found = _BLANK.match(s, i)
    assert found is not None  # (every repetition is optional: it always matches)
    return found.end()


def _escaped(s: str, at: int) -> bool:
    """Whether the character at ``at`` is preceded by an odd number of backslashes."""
    count = 0
    while at - count - 1 >= 0 and s[at - count - 1] == "\\":
        count += 1
    return count % 2 == 1
