"""YAML text -> ``Doc``, keeping every node's line and column.

The text is composed (not constructed) with libyaml when available, so each node keeps its
mark; scalars are then built with PyYAML's safe constructor: SafeLoader semantics, no Python
tags. Mapping keys are kept as written (``on:`` stays the string ``"on"``), duplicate keys
are errors, merge keys (``<<: *base``) work, and tags other than the plain JSON-like ones
(``!!binary``, ``!!set``, custom ``!tags``) are rejected with their line.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from toolhost.config.limits import LIMITS, MAX_DIGITS, check_finite
from toolhost.config.tree import Doc, Mark, Path, format_path
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["parse_yaml"]

try:  # libyaml is ~10x faster on big files; the pure-Python loader gives the same nodes
    _Base: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Base = yaml.SafeLoader


class _Loader(_Base):  # type: ignore[misc]
    """YAML 1.1's resolvers, and JSON's numbers that YAML 1.1 would read as strings: an
    exponent without a dot or without a sign (``1e5``, ``1.0e5``, ``5e-324``, ``1e+22``)."""


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))

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


_LINE_BREAKS = re.compile("[\x85\u2028\u2029]")
_BREAK_NAMES = {"\x85": "U+0085 (NEL)", "\u2028": "U+2028 (LINE SEPARATOR)",
                "\u2029": "U+2029 (PARAGRAPH SEPARATOR)"}


def parse_yaml(text: str, file: str, layer: str, problems: list[Problem]) -> Doc | None:
    """Parse ``text``; on a syntax error append a Problem and return None."""
    odd = _LINE_BREAKS.search(text)
    if odd is not None:  # YAML 1.1 reads these as line breaks: a string would silently change
        line = text.count("\n", 0, odd.start()) + 1
        column = odd.start() - (text.rfind("\n", 0, odd.start()) + 1) + 1
        problems.append(Problem(
            f"invalid YAML: {_BREAK_NAMES[odd.group()]} is read as a line break, so the "
            "text around it would change", file, line, column,
            hint="write it escaped inside double quotes (\\N, \\L, \\P) or remove it"))
        return None
    try:
        bounded = _prescan(text, file)
        if isinstance(bounded, Problem):
            problems.append(bounded)
            return None
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        message = f"invalid YAML: {cut(str(exc.problem or exc.context), 300)}"
        start = exc.context_mark
        if exc.problem and exc.context and start is not None and start.line + 1 != line:
            # an unclosed bracket or quote is found lines later: say where it opened
            message += f" ({exc.context} at line {start.line + 1}, column {start.column + 1})"
        problems.append(Problem(message, file, line, col, hint=_syntax_hint(exc, text)))
        return None
    except UnicodeEncodeError as exc:  # a lone surrogate: text that came from no UTF-8 file
        line = text.count("\n", 0, exc.start) + 1
        problems.append(Problem("invalid YAML: not UTF-8 text (a lone surrogate)", file, line,
                                exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1))
        return None
    except yaml.reader.ReaderError as exc:  # a control character, e.g. NUL: say where it is
        at = max(exc.position, 0)
        line = text.count("\n", 0, at) + 1
        char = exc.character
        char = char if isinstance(char, int) else ord(char[:1] or " ")
        problems.append(Problem(f"invalid YAML: control character U+{char:04X} is not allowed",
                                file, line, at - (text.rfind("\n", 0, at) + 1) + 1))
        return None
    except yaml.YAMLError as exc:
        problems.append(Problem(f"invalid YAML: {cut(' '.join(str(exc).split()), 300)}",
                                file))
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


def _at(event: Any, file: str, message: str, hint: str) -> Problem:
    mark = event.start_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    return Problem(message, file, line, column, hint=hint)


def _prescan(text: str, file: str) -> Problem | None:
    """Walk the event stream once (libyaml's parser keeps its own stack; the composer after it
    recurses once per level): refuse nesting deeper than the limit and too many aliases
    before anything is built. Syntax errors are left to the composer, which reports them."""
    try:
        return _scan(text, file, _Loader)
    except yaml.YAMLError as exc:
        # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1,000 levels while scanning ahead,
        # before the events reach our limit: walk again with the pure-Python parser (no
        # limit of its own, no recursion) so the problem names our limit and its place.
        if "nesting depth" not in str(exc) or _Base is yaml.SafeLoader:
            raise
        return _scan(text, file, yaml.SafeLoader)


def _scan(text: str, file: str, loader: Any) -> Problem | None:
    depth_limit, alias_limit = LIMITS.depth, LIMITS.aliases
    depth = aliases = 0
    for event in yaml.parse(text, Loader=loader):
        kind = type(event)
        if kind in _OPEN:
            depth += 1
            if depth > depth_limit:
                return _at(event, file, f"nested more than {depth_limit} mappings or lists deep",
                           "raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant")
        elif kind in _CLOSE:
            depth -= 1
        elif kind is AliasEvent:
            aliases += 1
            if aliases > alias_limit:
                return _at(event, file, f"more than {alias_limit:,} YAML aliases",
                           "raise TOOLHOST_MAX_YAML_ALIASES if this is meant")
    return None


_OPEN = (MappingStartEvent, SequenceStartEvent)
_CLOSE = (MappingEndEvent, SequenceEndEvent)


class _Walker:
    """Nodes -> plain data. Aliases share nodes, so a small text can stand for a huge tree
    (a "billion laughs"): every node walked again through an alias counts against
    ``LIMITS.alias_nodes``, and the walk stops at the first node over it."""

    def __init__(self, doc: Doc, problems: list[Problem]) -> None:
        self.doc = doc
        self.problems = problems
        self.constructor = yaml.constructor.SafeConstructor()
        self.stack: set[int] = set()  # node ids being walked: an alias cycle is an error
        self.walked: set[int] = set()  # node ids walked once: seeing one again is an alias
        self.expanded = 0
        self.expand_limit = LIMITS.alias_nodes
        self.depth_limit = LIMITS.depth
        self.stopped = False

    def problem(self, node: Node, path: Path, message: str, hint: str = "") -> None:
        mark = node.start_mark
        self.problems.append(Problem(message, self.doc.file, mark.line + 1, mark.column + 1,
                                     cut(format_path(path), 200), hint))

    def mark(self, node: Node, path: Path) -> None:
        m = node.start_mark
        self.doc.marks[path] = Mark(self.doc.file, m.line + 1, m.column + 1, self.doc.layer)

    def walk(self, node: Node, path: Path) -> Any:
        if self.stopped:
            return None
        if id(node) in self.stack:
            self.problem(node, path, "recursive YAML alias")
            return None
        if id(node) in self.walked:
            self.expanded += 1
            if self.expanded > self.expand_limit:
                self.stopped = True
                self.problem(node, path, f"YAML aliases expand to more than "
                             f"{self.expand_limit:,} nodes (an alias bomb?)",
                             "raise TOOLHOST_MAX_YAML_ALIAS_NODES if this is meant")
                return None
        else:
            self.walked.add(id(node))
        if len(path) > self.depth_limit:  # aliases can nest what the text did not
            self.stopped = True
            self.problem(node, path, f"nested more than {self.depth_limit} levels deep "
                         "(through aliases)", "raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant")
            return None
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        self.stack.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return self.mapping(node, path)
            if isinstance(node, SequenceNode):
                if node.tag != _T + "seq":
                    self.problem(node, path, f"unsupported YAML tag {cut(node.tag, 80)}")
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
            self.problem(node, path, f"unsupported YAML tag {cut(node.tag, 80)}")
        # merge keys (<<: *base, <<: [*a, *b]) are resolved here, on walked values, rather
        # than by PyYAML's flatten_mapping, which copies node lists and can grow them
        # exponentially; keys written in the mapping win, then earlier merges over later ones
        merged: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE:
                continue
            sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
            for source in sources:
                if not isinstance(source, MappingNode):
                    self.problem(source, path, "invalid YAML merge: '<<' takes a mapping or a "
                                 "list of mappings")
                    continue
                value = self.walk(source, path)
                if isinstance(value, dict):
                    for key, item in value.items():
                        merged.setdefault(key, item)
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if key_node.tag == _MERGE:
                continue
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
        for key, item in merged.items():
            out.setdefault(key, item)
        return out

    def scalar(self, node: ScalarNode, path: Path) -> Any:
        if node.tag == _T + "str":
            return node.value
        if node.tag == _T + "int" and sum(c.isdigit() for c in node.value) > MAX_DIGITS:
            self.problem(node, path, f"an integer of more than {MAX_DIGITS:,} digits")
            return None
        if node.tag in _PLAIN_TAGS:
            try:
                value = self.constructor.construct_object(node)
            except (ValueError, yaml.YAMLError) as exc:
                self.problem(node, path, f"invalid {node.tag[len(_T):]}: {cut(str(exc), 120)}")
                return None
            reason = check_finite(value)
            if reason:
                self.problem(node, path, reason)
                return None
            return value
        if node.tag == _TIMESTAMP:  # kept as written: the model is JSON-like data
            return node.value
        self.problem(node, path, f"unsupported YAML tag {cut(node.tag, 80)}")
        return None
