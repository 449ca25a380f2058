"""YAML text -> ``Doc``, keeping every node's line and column.

The text is composed (not constructed) with libyaml when available, so each node keeps its
mark; scalars are then built with PyYAML's safe constructor: SafeLoader semantics, no Python
tags. Mapping keys are kept as written (``on:`` stays the string ``"on"``), duplicate keys
are errors, merge keys (``<<: *base``) work, and tags other than the plain JSON-like ones
(``!!binary``, ``!!set``, custom ``!tags``) are rejected with their line.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from toolhost.config.tree import Doc, Mark, Path, format_path
from toolhost.errors import Problem

__all__ = ["parse_yaml"]

try:  # libyaml is ~10x faster on big files; the pure-Python loader gives the same nodes
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

_T = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null"}
_MERGE = _T + "merge"
_TIMESTAMP = _T + "timestamp"


def _syntax_hint(exc: yaml.MarkedYAMLError, text: str) -> str:
    """How to fix the YAML mistakes people make most: indentation, tabs, unquoted ': '."""
    problem, mark, start = exc.problem or "", exc.problem_mark, exc.context_mark
    if mark is not None and text[mark.index:mark.index + 1] == "\t":
        return "indent with spaces: YAML does not allow tabs"
    if "mapping values are not allowed" in problem:
        return "quote a value that contains ': ', as in description: \"Note: this\""
    if problem.startswith("did not find expected key") and start is not None and mark is not None:
        return (f"check the indentation of line {mark.line + 1}: the keys of one mapping "
                "line up")
    return ""


def parse_yaml(text: str, file: str, layer: str, problems: list[Problem]) -> Doc | None:
    """Parse ``text``; on a syntax error append a Problem and return None."""
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        message = f"invalid YAML: {exc.problem or exc.context}"
        start = exc.context_mark
        if exc.problem and exc.context and start is not None and start.line + 1 != line:
            # an unclosed bracket or quote is found lines later: say where it opened
            message += f" ({exc.context} at line {start.line + 1}, column {start.column + 1})"
        problems.append(Problem(message, file, line, col, hint=_syntax_hint(exc, text)))
        return None
    except yaml.YAMLError as exc:
        problems.append(Problem(f"invalid YAML: {exc}", file))
        return None
    if len(nodes) > 1:
        line = nodes[1].start_mark.line + 1
        lines = text.splitlines()
        for i in range(nodes[0].end_mark.line, min(line, len(lines))):
            if lines[i].startswith("---"):  # point at the separator, not the content
                line = i + 1
                break
        problems.append(Problem("a config file holds one YAML document, found "
                                f"{len(nodes)} (remove the extra '---')", file, line, 1))
        return None
    doc = Doc(data=None, file=file, layer=layer)
    doc.marks[()] = Mark(file, 1, 1, layer)
    if nodes:
        walker = _Walker(doc, problems)
        doc.data = walker.walk(nodes[0], ())
    return doc


class _Walker:
    def __init__(self, doc: Doc, problems: list[Problem]) -> None:
        self.doc = doc
        self.problems = problems
        self.constructor = yaml.constructor.SafeConstructor()
        self.stack: set[int] = set()  # node ids being walked: an alias cycle is an error

    def problem(self, node: Node, path: Path, message: str, hint: str = "") -> None:
        mark = node.start_mark
        self.problems.append(Problem(message, self.doc.file, mark.line + 1, mark.column + 1,
                                     format_path(path), hint))

    def mark(self, node: Node, path: Path) -> None:
        m = node.start_mark
        self.doc.marks[path] = Mark(self.doc.file, m.line + 1, m.column + 1, self.doc.layer)

    def walk(self, node: Node, path: Path) -> Any:
        if id(node) in self.stack:
            self.problem(node, path, "recursive YAML alias")
            return None
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        self.stack.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return self.mapping(node, path)
            if isinstance(node, SequenceNode):
                if node.tag != _T + "seq":
                    self.problem(node, path, f"unsupported YAML tag {node.tag}")
                out = []
                for index, item in enumerate(node.value):
                    self.mark(item, (*path, index))
                    out.append(self.walk(item, (*path, index)))
                return out
        finally:
            self.stack.discard(id(node))
        self.problem(node, path, f"unsupported YAML node {node.tag}")  # pragma: no cover
        return None  # pragma: no cover

    def mapping(self, node: MappingNode, path: Path) -> dict[str, Any]:
        if node.tag != _T + "map":
            self.problem(node, path, f"unsupported YAML tag {node.tag}")
        if any(key.tag == _MERGE for key, _ in node.value):
            try:
                self.constructor.flatten_mapping(node)
            except yaml.constructor.ConstructorError as exc:
                self.problem(node, path, f"invalid YAML merge: {exc.problem}")
                return {}
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                self.problem(key_node, path, "a mapping key must be a plain string",
                             "quote templates: unquoted, {{ x }} is read as a mapping"
                             if isinstance(key_node, MappingNode) else "")
                continue
            key = key_node.value
            child = (*path, key)
            if key in out:
                self.problem(key_node, child, "duplicate key (the earlier one would be lost)")
                continue
            self.mark(key_node, child)
            out[key] = self.walk(value_node, child)
        return out

    def scalar(self, node: ScalarNode, path: Path) -> Any:
        if node.tag == _T + "str":
            return node.value
        if node.tag in _PLAIN_TAGS:
            return self.constructor.construct_object(node)
        if node.tag == _TIMESTAMP:  # kept as written: the model is JSON-like data
            return node.value
        self.problem(node, path, f"unsupported YAML tag {node.tag}")
        return None
