"""A parsed config file as plain data plus a side table of where each node was written.

Both syntaxes (YAML, TOML) produce a ``Doc``: ``data`` is plain JSON-like data (dict, list,
str, int, float, bool, None) and ``marks`` maps each node's key path (a tuple of str keys and
int indices) to the ``Mark`` where it was written. Keeping positions beside the data, not
inside it, lets merging and validation work on ordinary dicts and still name file:line.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from toolhost.config.model import Origin

__all__ = ["Doc", "Key", "Mark", "Origins", "Path", "format_path", "iter_paths", "mark_for"]

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
    marks: dict[Path, Mark] = field(default_factory=dict)
    file: str = "<config>"
    layer: str = "project"
    # strings ${...} interpolation changed: path -> (the text as written, the [start, end) of
    # each substituted value in the result), for checks that care who wrote a character
    substituted: dict[Path, tuple[str, tuple[tuple[int, int], ...]]] = field(
        default_factory=dict)


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


def mark_for(marks: dict[Path, Mark], path: Path, default_file: str = "<config>") -> Mark:
    """The mark of ``path``, or of its nearest marked ancestor (a key a parser cannot place)."""
    for end in range(len(path), -1, -1):
        mark = marks.get(path[:end])
        if mark is not None:
            return mark
    return Mark(default_file)


def iter_paths(data: Any, prefix: Path = ()) -> Iterator[Path]:
    """Every node's path, the root included, parents before children."""
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from iter_paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from iter_paths(value, (*prefix, index))


class Origins(Mapping[str, Origin]):
    """Dotted key path -> ``Origin``, built from the marks on first use.

    Only ``--explain`` and error reporting look at origins; building every entry eagerly
    would cost a big config a good part of its load time.
    """

    def __init__(self, marks: Mapping[Path, Mark]) -> None:
        self._marks = marks
        self._table: dict[str, Origin] | None = None

    def _built(self) -> dict[str, Origin]:
        if self._table is None:
            self._table = {format_path(p): m.origin(p) for p, m in self._marks.items() if p}
        return self._table

    def __getitem__(self, key: str) -> Origin:
        return self._built()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._built())

    def __repr__(self) -> str:
        return f"Origins({len(self._marks)} keys)"
