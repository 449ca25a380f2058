"""A parsed config file as plain data plus a side table of where each node was written.

Both syntaxes (YAML, TOML) produce a ``Doc``: ``data`` is plain JSON-like data (dict, list,
str, int, float, bool, None) and ``marks`` maps each node's key path (a tuple of str keys and
int indices) to the ``Mark`` where it was written. Keeping positions beside the data, not
inside it, lets merging and validation work on ordinary dicts and still name file:line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from toolhost.config.model import Origin

__all__ = ["Doc", "Key", "LazyMarks", "LazyOrigin", "Mark", "Origins", "Path", "format_path",
           "iter_paths", "mark_for", "node_count"]

Key = str | int
Path = tuple[Key, ...]


class Mark(NamedTuple):
    """Where a node was written, and which config layer the file belongs to.

    A named tuple, not a dataclass: a big file makes tens of thousands of them.
    """

    file: str
    line: int = 0  # 1-based, 0 = unknown
    column: int = 0
    layer: str = "project"

    def origin(self, path: Path) -> Origin:
        return Origin(self.file, self.line, self.column, format_path(path))


@dataclass
class Doc:
    """One file's content (or several files merged)."""

    data: Any
    marks: MutableMapping[Path, Mark] = field(default_factory=dict)
    file: str = "<config>"
    layer: str = "project"
    # strings ${...} interpolation changed: path -> (the text as written, the [start, end) of
    # each substituted value in the result), for checks that care who wrote a character
    substituted: dict[Path, tuple[str, tuple[tuple[int, int], ...]]] = field(
        default_factory=dict)
    # settings a file of another layer overrode (merge.WATCHED): path -> (the earlier value
    # and its mark, the value that won and its mark), each a note of ``validate``
    overridden: list[tuple[Path, Any, Mark, Any, Mark]] = field(default_factory=list)
    # integers written otherwise than Python writes them (``0x10``, ``0b11``, ``1_000``,
    # ``+12``): path -> the text, for the places that pass a value on as text (an env value,
    # an argv element, a header), where '16' would reach the program for ``0x10``
    spelled: dict[Path, str] = field(default_factory=dict)
    # the reader stopped part-way (an alias bomb, nesting through aliases): ``data`` lacks
    # what came after the stop, so a reader of its keys must not call them missing or unknown
    partial: bool = False


def format_path(path: Path) -> str:
    """``("servers", "git", "command", 2)`` -> ``servers.git.command[2]``."""
    if all(type(key) is str for key in path):  # most paths: one join, no index to bracket
        return ".".join(path)  # type: ignore[arg-type]
    out = ""
    for key in path:
        if isinstance(key, int):
            out += f"[{key}]"
        else:
            out += f".{key}" if out else key
    return out


def deep_path(path: Path, chars: int = 160) -> str:
    """``format_path`` of a path nested past the depth limit, its middle left out when long
    (``x.a.a.a…a``, ``x[0][0]…[0]``): one word with no blank, as a key path is, naming the
    key that holds it and its last part."""
    whole = format_path(path)
    if len(whole) <= chars:
        return whole
    last = format_path(path[-1:]) if isinstance(path[-1], int) else "." + str(path[-1])[:40]
    head = whole[:chars - len(last)]
    return head + "…" + last


def mark_for(marks: Mapping[Path, Mark], path: Path, default_file: str = "<config>") -> Mark:
    """The mark of ``path``, or of its nearest marked ancestor (a key a parser cannot place)."""
    for end in range(len(path), -1, -1):
        mark = marks.get(path[:end])
        if mark is not None:
            return mark
    return Mark(default_file)


class LazyMarks(MutableMapping[Path, Mark]):
    """Marks made on first use: a parser that keeps no positions (``tomllib``) hands over how
    to find them, and the scan of the text runs only when a mark is read (a problem to
    locate, ``--explain``, a merge of several files). A load that finds nothing wrong in one
    file never scans it. ``count`` (the nodes, the root included) is known without a scan."""

    def __init__(self, make: Callable[[], dict[Path, Mark]], count: int, file: str,
                 layer: str) -> None:
        self._make: Callable[[], dict[Path, Mark]] | None = make
        self._marks: dict[Path, Mark] = {}
        self.count = count
        self.file, self.layer = file, layer  # every mark's: one file's marks

    @property
    def scanned(self) -> bool:
        return self._make is None

    def _built(self) -> dict[Path, Mark]:
        make = self._make
        if make is not None:  # (two threads may both scan: the same marks; none sees a half)
            self._marks = make()
            self._make = None
        return self._marks

    def __getitem__(self, path: Path) -> Mark:
        return self._built()[path]

    def get(self, path: Path, default: Any = None) -> Any:  # (the usual read: one call)
        return self._built().get(path, default)

    def __contains__(self, path: object) -> bool:
        return path in self._built()

    def __setitem__(self, path: Path, mark: Mark) -> None:
        self._built()[path] = mark

    def __delitem__(self, path: Path) -> None:
        del self._built()[path]

    def __iter__(self) -> Iterator[Path]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __repr__(self) -> str:
        return f"LazyMarks({'unscanned' if self._make else len(self._marks)}, {self.count} nodes)"


class LazyOrigin(Origin):
    """An ``Origin`` whose line and column are looked up in ``LazyMarks`` when first read
    (an error to show, ``--explain``): building the model names every tool's origin, and
    reading none of them must not scan the file. Equal to the ``Origin`` it stands for."""

    def __init__(self, marks: Mapping[Path, Mark] | None = None, path: Path = (),
                 file: str = "<config>", line: int = 0, column: int = 0,
                 key_path: str = "") -> None:
        object.__setattr__(self, "file", file)  # (one file's lazy marks: every mark's file)
        if marks is None:  # ``dataclasses.replace`` passes the fields: a placed origin
            object.__setattr__(self, "_mark", Mark(file, line, column))
            object.__setattr__(self, "key_path", key_path)
            return
        object.__setattr__(self, "_at", (marks, path, file))
        object.__setattr__(self, "key_path", format_path(path))

    def _found(self) -> Mark:
        found: Mark | None = self.__dict__.get("_mark")
        if found is None:
            marks, path, file = self.__dict__["_at"]
            found = mark_for(marks, path, file)
            object.__setattr__(self, "_mark", found)
        return found

    @property
    def line(self) -> int:
        return self._found().line

    @property
    def column(self) -> int:
        return self._found().column

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Origin):
            return NotImplemented
        return (self.file, self.line, self.column, self.key_path) == (
            other.file, other.line, other.column, other.key_path)

    def __hash__(self) -> int:
        return hash((self.file, self.line, self.column, self.key_path))

    def __reduce__(self) -> Any:  # (a copy or a pickle is the plain Origin)
        return Origin, (self.file, self.line, self.column, self.key_path)


def node_count(marks: Mapping[Path, Mark]) -> int:
    """How many nodes the file of ``marks`` holds (a mark per node), without making lazy
    marks."""
    return marks.count if isinstance(marks, LazyMarks) else len(marks)


def iter_paths(data: Any, prefix: Path = ()) -> Iterator[Path]:
    """Every node's path, the root included, parents before children."""
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from iter_paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from iter_paths(value, (*prefix, index))


_ODD = re.compile(r"[.\[\]]")
_SEGMENT = re.compile(r"([^.\[\]]*)((?:\[[0-9]+\])*)")


def _parse_path(key: str) -> Path | None:
    """The path ``format_path`` would print as ``key``, read back (``a.b[2]`` ->
    ``("a", "b", 2)``); None when ``key`` is not of that shape. A key holding ``.`` or
    brackets itself reads back as another path: the caller checks the mark it finds."""
    path: list[Key] = []
    for part in key.split("."):
        match = _SEGMENT.fullmatch(part)
        if match is None or not (match.group(1) or path):
            return None
        if match.group(1):
            path.append(match.group(1))
        if match.group(2):
            path.extend(int(i) for i in match.group(2)[1:-1].split("]["))
    return tuple(path)


class Origins(Mapping[str, Origin]):
    """Dotted key path -> ``Origin``, built from the marks on first use.

    Only ``--explain`` and error reporting look at origins; building every entry eagerly
    would cost a big config a good part of its load time.
    """

    def __init__(self, marks: Mapping[Path, Mark]) -> None:
        self._marks = marks
        self._table: dict[str, Origin] | None = None
        self._odd: bool | None = None

    def _built(self) -> dict[str, Origin]:
        if self._table is None:
            self._table = {format_path(p): m.origin(p) for p, m in self._marks.items() if p}
        return self._table

    def __getitem__(self, key: str) -> Origin:
        if self._table is None:  # one key: read its path back, not format every node's
            path = _parse_path(key)
            if path and format_path(path) == key:
                mark = self._marks.get(path)
                if mark is not None:
                    return mark.origin(path)
                if not self._odd_keys():  # no other path prints as this key
                    raise KeyError(key)
        return self._built()[key]

    def _odd_keys(self) -> bool:
        """Whether a node's key holds ``.`` or brackets (or is empty), so that its path
        prints like another one's (every node is marked, so each key ends some path)."""
        if self._odd is None:
            self._odd = any(type(p[-1]) is str and (not p[-1] or _ODD.search(p[-1]))
                            for p in self._marks if p)
        return self._odd

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __repr__(self) -> str:
        return f"Origins({len(self._marks)} keys)"
