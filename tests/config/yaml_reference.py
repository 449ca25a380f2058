"""The composed path the YAML loader took before it built the data from libyaml's events
(``toolhost/config/yaml_events.py``): PyYAML's composer, then a walk over its nodes. Kept here
as the oracle the event builder is compared with (data, marks, problems)."""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from toolhost.config.limits import LIMITS, MAX_DIGITS, check_finite, toml_depth
from toolhost.config.load_budget import values_left, values_message
from toolhost.config.tree import Doc, Mark, Path, format_path
from toolhost.config.yaml_numbers import yaml11_number
from toolhost.config.yaml_source import _Base, _Loader, _syntax_hint
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["composed"]

_T = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null"}
_MERGE = _T + "merge"
_TIMESTAMP = _T + "timestamp"
_STR, _INT, _SEQ, _MAP = _T + "str", _T + "int", _T + "seq", _T + "map"  # built once
_FLOAT = _T + "float"


_new_tuple = tuple.__new__


def _kind(node: Node) -> str:
    if isinstance(node, SequenceNode):
        return "a list"
    if isinstance(node, ScalarNode):
        return "an empty value" if node.value == "" and not node.style else "a plain value"
    return "a value that is no mapping"  # pragma: no cover


class Recheck(Exception):
    """A trusted walk met something the prescan might have refused first."""


class Walker:
    """Nodes -> plain data; the walk stops at the first node over ``LIMITS.alias_nodes``."""

    def __init__(self, doc: Doc, problems: list[Problem], *, trusted: bool = False,
                 shared: bool = True) -> None:
        self.doc = doc
        self.marks, self.file, self.layer = doc.marks, doc.file, doc.layer
        # a config's YAML 1.1-only numbers are refused (yaml11_number); an OpenAPI document
        # is someone else's text, read as before
        self.strict_numbers = doc.layer != "openapi"
        self.problems = problems
        self.constructor = yaml.constructor.SafeConstructor()
        self.stack: set[int] = set()  # node ids being walked: an alias cycle is an error
        self.walked: set[int] = set()  # node ids walked once: seeing one again is an alias
        self.expanded = 0
        self.expand_limit = LIMITS.alias_nodes
        self.depth_limit = LIMITS.depth
        # trusted: a node this deep may sit in text nested past the limit (the prescan's call)
        self.recheck_depth = self.depth_limit if trusted else None
        self.stopped = False
        # shared: the text may hold aliases (a ``*``), so a node can be walked twice. Without
        # one, every node is walked once: no node ids are kept, and each list lets go of its
        # items as they are walked, so the nodes and the built data are not all held at once
        # (a 500,000-value file peaked at 367 MB holding both).
        self.shared = shared

    def problem(self, node: Node, path: Path, message: str, hint: str = "") -> None:
        if self.recheck_depth is not None:
            raise Recheck
        mark = node.start_mark
        self.problems.append(Problem(message, self.doc.file, mark.line + 1, mark.column + 1,
                                     cut(format_path(path), 200), hint))

    def mark(self, node: Node, path: Path) -> None:
        m = node.start_mark  # a big file has tens of thousands: built as the tuple it is
        self.marks[path] = _new_tuple(Mark, (self.file, m.line + 1, m.column + 1, self.layer))

    def walk(self, node: Node, path: Path) -> Any:
        if self.stopped:
            return None
        if self.shared and not self.seen(node, path):
            return None
        if self.recheck_depth is not None and len(path) >= self.recheck_depth:
            raise Recheck
        if len(path) > self.depth_limit:  # aliases can nest what the text did not
            self.stopped = True
            self.problem(node, path, f"nested more than {self.depth_limit} levels deep "
                         "(through aliases)", "raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant")
            return None
        if isinstance(node, ScalarNode):
            return self.scalar(node, path)
        if not self.shared:
            return self.collection(node, path)
        self.stack.add(id(node))
        try:
            return self.collection(node, path)
        finally:
            self.stack.discard(id(node))

    def seen(self, node: Node, path: Path) -> bool:
        """Count a node walked again through an alias; False for an alias cycle or one
        past the expansion limit (the problem is added)."""
        if id(node) in self.stack:
            self.problem(node, path, "recursive YAML alias")
            return False
        if id(node) in self.walked:
            self.expanded += 1
            if self.expanded > self.expand_limit:
                self.stopped = True
                self.problem(node, path, f"YAML aliases expand to more than "
                             f"{self.expand_limit:,} nodes (an alias bomb?)",
                             "raise TOOLHOST_MAX_YAML_ALIAS_NODES if this is meant")
                return False
        else:
            self.walked.add(id(node))
        return True

    def collection(self, node: Node, path: Path) -> Any:
        if isinstance(node, MappingNode):
            mapping = self.mapping(node, path)
            if not self.shared:
                node.value = []  # walked once: its nodes can go
            return mapping
        if isinstance(node, SequenceNode):
            if node.tag != _SEQ:
                self.problem(node, path, f"unsupported YAML tag {cut(node.tag, 80)}")
            items = node.value
            if not self.shared:
                node.value = []  # walked once: each item's node goes once it is walked
            out: list[Any] = []
            for index in range(len(items)):
                item = items[index]
                if not self.shared:
                    items[index] = None
                self.mark(item, (*path, index))
                out.append(self.walk(item, (*path, index)))
            return out
        self.problem(node, path, f"unsupported YAML node {node.tag}")  # pragma: no cover
        return None  # pragma: no cover

    def mapping(self, node: MappingNode, path: Path) -> dict[str, Any]:
        if node.tag != _MAP:
            self.problem(node, path, f"unsupported YAML tag {cut(node.tag, 80)}")
        # merge keys (<<: *base, <<: [*a, *b]) are resolved here, on walked values, rather
        # than by PyYAML's flatten_mapping, which copies node lists and can grow them
        # exponentially; keys written in the mapping win, then earlier merges over later ones
        merged: dict[str, Any] = {}
        merges = 0
        for key_node, value_node in node.value:
            if key_node.tag != _MERGE:
                continue
            merges += 1
            if merges == 2:  # PyYAML would merge both; YAML says a key is written once
                self.problem(key_node, path, "duplicate key '<<' (a mapping has one merge key)",
                             "merge several mappings with one key: <<: [*a, *b]")
            listed = isinstance(value_node, SequenceNode)
            sources = value_node.value if listed else [value_node]
            bad = [_kind(s) for s in sources if not isinstance(s, MappingNode)]
            if bad:  # one problem, at the merge key
                got = (f"its list holds {' and '.join(dict.fromkeys(bad[:3]))}" if listed
                       else f"not {bad[0]}")
                self.problem(key_node, path, "invalid YAML merge: '<<' takes a mapping or a "
                             f"list of mappings, {got}",
                             "anchor a mapping (x: &x {...}) and merge it: <<: *x")
            for source in sources:
                if not isinstance(source, MappingNode):
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
        tag, text = node.tag, node.value
        if tag == _STR:
            return text
        if tag == _INT:
            if (text.isascii() and text.isdigit() and (text[0] != "0" or text == "0")
                    and len(text) <= MAX_DIGITS):
                return int(text)  # plain decimal digits (most integers): what PyYAML builds
            if sum(c.isdigit() for c in text) > MAX_DIGITS:
                self.problem(node, path, f"an integer of more than {MAX_DIGITS:,} digits")
                return None
        if tag in _PLAIN_TAGS:
            try:
                value = self.constructor.construct_object(node)
                # it keeps each node it built (for aliases, which the walk handles itself):
                # let go of it, or every scalar node of the file stays alive
                self.constructor.constructed_objects.clear()
            except (ValueError, LookupError, yaml.YAMLError) as exc:  # LookupError: fixed here too
                self.problem(node, path, f"invalid {node.tag[len(_T):]}: {cut(str(exc), 120)}")
                return None
            if (node.tag == _INT or node.tag == _FLOAT) and (":" in text or "0" in text[:2]) \
                    and self.strict_numbers:
                wrong = yaml11_number(text, value, node.tag == _INT)
                if wrong:
                    self.problem(node, path, *wrong)
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


def _doc(nodes: list[Node], file: str, layer: str, problems: list[Problem], *,
         trusted: bool = False, shared: bool = True) -> Doc:
    """``shared``: the text may hold aliases (see ``Walker``); the walk lets go of the
    nodes when it cannot."""
    doc = Doc(data=None, file=file, layer=layer)
    doc.marks[()] = Mark(file, 1, 1, layer)
    if nodes:
        root = nodes.pop(0) if not shared else nodes[0]
        doc.data = Walker(doc, problems, trusted=trusted, shared=shared).walk(root, ())
    return doc


def composed(text: str, file: str, layer: str, problems: list[Problem]) -> Doc | None:
    """The prescan (depth and aliases), then the composer and the walk."""
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
    return _doc(nodes, file, layer, problems, shared="*" in text)


def _at(event: Any, file: str, message: str, hint: str) -> Problem:
    mark = event.start_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    return Problem(message, file, line, column, hint=hint)


def _prescan(text: str, file: str) -> Problem | None:
    """Walk the event stream once (libyaml's parser keeps its own stack; the composer after it
    recurses once per level): refuse nesting deeper than the limit and too many aliases
    before anything is built. Syntax errors are left to the composer, which reports them."""
    reached = [0, -1]  # the depth and the place of the last event seen, when libyaml stops
    try:
        return _scan(text, file, _Loader, reached)
    except yaml.MarkedYAMLError as exc:
        # libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1,000 levels while scanning ahead,
        # before the events reach our limit (at most MAX_CONFIG_DEPTH, far below): the text
        # is deeper than the limit, and libyaml's mark is where it went past 1,000. (Walking
        # again with the pure-Python parser took 5 s per MiB to get there.)
        if "nesting depth" not in str(exc) or _Base is yaml.SafeLoader:
            raise
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        if mark is not None:  # a flow collection opened on that line: the bracket past ours
            start = text.rfind("\n", 0, mark.index) + 1
            depth, last = reached
            if last >= start:  # events of this line were seen: the depth where it began
                seen = text[start:last + 1]
                depth -= seen.count("[") + seen.count("{") - seen.count("]") - seen.count("}")
            deep = toml_depth(text[start:mark.index], max(LIMITS.depth - depth, 0))
            column = deep + 1 if deep >= 0 else column
        return Problem(f"nested more than {LIMITS.depth} mappings or lists deep", file, line,
                       column, hint="raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant")


def _scan(text: str, file: str, loader: Any, reached: list[int]) -> Problem | None:
    depth_limit, alias_limit, value_limit = LIMITS.depth, LIMITS.aliases, values_left()
    anchor_limit = LIMITS.anchors
    depth = aliases = values = anchors = 0
    for event in yaml.parse(text, Loader=loader):
        kind = type(event)
        if kind in _CLOSE:
            depth -= 1
            reached[0], reached[1] = depth, _index(event)
            continue
        if kind in _VALUES:  # scalars (keys too), mappings, lists, aliases
            values += 1
            if values > value_limit:
                return _at(event, file, values_message(value_limit),
                           "raise TOOLHOST_MAX_CONFIG_VALUES if this is meant")
        if kind in _OPEN:
            depth += 1
            reached[0], reached[1] = depth, _index(event)
            if depth > depth_limit:
                return _at(event, file, f"nested more than {depth_limit} mappings or lists deep",
                           "raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant")
        elif kind is AliasEvent:
            aliases += 1
            if aliases > alias_limit:
                return _at(event, file, f"more than {alias_limit:,} YAML aliases",
                           "raise TOOLHOST_MAX_YAML_ALIASES if this is meant")
        if kind is not AliasEvent and kind in _VALUES and event.anchor is not None:
            anchors += 1
            if anchors > anchor_limit:
                return _at(event, file, f"more than {anchor_limit:,} YAML anchors (&name)",
                           "raise TOOLHOST_MAX_YAML_ANCHORS if this is meant")
    return None


def _index(event: Any) -> int:
    mark = event.start_mark
    return mark.index if mark is not None else -1


_OPEN = (MappingStartEvent, SequenceStartEvent)
_CLOSE = (MappingEndEvent, SequenceEndEvent)
_VALUES = (*_OPEN, ScalarEvent, AliasEvent)
