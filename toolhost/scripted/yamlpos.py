"""YAML to plain Python values, remembering the line each value was written on.

The scenario loader reports problems as ``file:line: key.path: message``; PyYAML's node
graph carries the marks, so we compose nodes and convert them ourselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from toolhost.errors import ConfigError, Problem

__all__ = ["Located", "load_located"]

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
    """Parse one YAML document. Raises ``ConfigError`` naming the file and line on bad YAML."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        reason = getattr(exc, "problem", None) or str(exc)
        raise ConfigError([Problem(f"invalid YAML: {reason}", file=file, line=line)]) from None
    out = Located(None, file)
    if node is None:
        return out
    loader = yaml.SafeLoader("")
    try:
        out.value = _convert(node, (), out.lines, file, loader)
    finally:
        loader.dispose()
    return out


def _convert(node: yaml.Node, path: Path, lines: dict[Path, int], file: str,
             loader: yaml.SafeLoader) -> Any:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        result: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            # scalar keys only: a mapping key that is a list is nonsense
            key = (loader.construct_object(key_node, deep=True)
                   if isinstance(key_node, yaml.ScalarNode) else None)
            if not isinstance(key, (str, int, float, bool)):
                raise ConfigError([Problem("mapping keys must be plain scalars", file=file,
                                           line=key_node.start_mark.line + 1,
                                           key_path=dotted(path))])
            skey = str(key)
            if skey in result:
                raise ConfigError([Problem(f"duplicate key '{skey}'", file=file,
                                           line=key_node.start_mark.line + 1,
                                           key_path=dotted(path))])
            result[skey] = _convert(value_node, (*path, skey), lines, file, loader)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_convert(item, (*path, i), lines, file, loader)
                for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)
