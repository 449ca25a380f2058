"""A parsed config file as plain data plus a side table of where each node was written.

Both syntaxes (YAML, TOML) produce a ``Doc``: ``data`` is plain JSON-like data (dict, list,
str, int, float, bool, None) and ``marks`` maps each node's key path (a tuple of str keys and
int indices) to the ``Mark`` where it was written. Keeping positions beside the data, not
inside it, lets merging and validation work on ordinary dicts and still name file:line.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from toolhost.config.model import Origin

__all__ = ["Doc", "Key", "Mark", "Path", "format_path", "iter_paths", "mark_for"]

Key = str | int
Path = tuple[Key, ...]


@dataclass(frozen=True)
class Mark:
    """Where a node was written, and which config layer the file belongs to."""

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


def format_path(path: Path) -> str:
    """``("servers", "git", "command", 2)`` -> ``servers.git.command[2]``."""
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
