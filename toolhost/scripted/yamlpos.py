"""YAML to plain Python values, remembering the line each value was written on.

The scenario loader reports problems as ``file:line: key.path: message``; the config's YAML
source keeps every node's mark, so scenarios reuse it (and its limits).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from toolhost.config.limits import read_bounded
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import ConfigError, Problem

__all__ = ["Located", "load_located", "read_located"]

Path = tuple[str | int, ...]


@dataclass
class Located:
    """A loaded document plus ``path -> 1-based line`` for every node in it."""

    value: Any
    file: str
    lines: dict[Path, int] = field(default_factory=dict)

    def line(self, path: Path) -> int:
        """The line of ``path``, or of its nearest ancestor that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return self.lines.get((), 0)

    def problem(self, path: Path, message: str, hint: str = "") -> Problem:
        return Problem(message, file=self.file, line=self.line(path), key_path=dotted(path),
                       hint=hint)


def dotted(path: Path) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def load_located(text: str, file: str) -> Located:
    """Parse one YAML document. Raises ``ConfigError`` naming the file and line on bad YAML.

    A scenario file is hostile input like a config file: it goes through the same bounded
    parser (nesting depth, alias expansion, integer digits, tags, inf/nan; see the "Limits"
    section of docs/config.md)."""
    problems: list[Problem] = []
    doc = parse_yaml(text, file, "scenario", problems)
    if doc is None or problems:
        raise ConfigError(problems or [Problem("invalid YAML", file=file)])
    out = Located(doc.data, file)
    out.lines = {path: mark.line for path, mark in doc.marks.items()}
    return out


def read_located(path: str, what: str = "scenario file") -> Located:
    """Read ``path`` within the config file limits (size, regular file, UTF-8) and parse it."""
    problems: list[Problem] = []
    if path.lower().endswith(".toml"):  # a config may be TOML, a scenario may not: not
        # "invalid YAML: did not find expected <document start>" at its first table
        raise ConfigError([Problem(f"a {what} is YAML, not TOML", path,
                                   hint=f"write the {what} as .yaml (docs/running.md)")])
    text = read_bounded(path, problems, what, hint=f"a {what} is a .yaml or .yml file")
    if text is None:
        raise ConfigError(problems)
    return load_located(text, path)
