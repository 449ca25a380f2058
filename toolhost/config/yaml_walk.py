"""libyaml's nodes -> plain data and the marks of every node (see ``yaml_source``).

Aliases share nodes, so a small text can stand for a huge tree (a "billion laughs"): every node
walked again through an alias counts against ``LIMITS.alias_nodes``. A walk told it is *trusted*
(the text was composed without the prescan) stops with ``Recheck`` at the first problem and at
the first node as deep as the nesting limit: the caller then takes the checked path, which
reports exactly what it always has.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from toolhost.config.limits import LIMITS, MAX_DIGITS, check_finite
from toolhost.config.tree import Doc, Mark, Path, format_path
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["Recheck", "Walker"]

_T = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_T + "str", _T + "int", _T + "float", _T + "bool", _T + "null"}
_MERGE = _T + "merge"
_TIMESTAMP = _T + "timestamp"
_STR, _INT, _SEQ, _MAP = _T + "str", _T + "int", _T + "seq", _T + "map"  # built once
_FLOAT = _T + "float"


_new_tuple = tuple.__new__


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
            except (ValueError, yaml.YAMLError) as exc:
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


def yaml11_number(text: str, value: Any, integer: bool) -> tuple[str, str] | None:
    """(message, hint) when the plain scalar ``text`` is a number only YAML 1.1 reads so
    (``value``), and YAML 1.2, JSON and TOML read otherwise: a base-60 ``1:30`` (90; text in
    YAML 1.2) or a leading-zero octal ``0755`` (493; 755 in YAML 1.2). ``command: [chmod,
    0755, f]`` ran ``chmod 493 f``, ``at 12:30`` ran ``at 750``."""
    if ":" in text:
        return (f"{cut(text, 40)!r} is a base-60 number in YAML 1.1 ({cut(str(value), 40)}) "
                "and text in YAML 1.2", f"quote it (\"{cut(text, 40)}\") for the text, or "
                f"write the number ({cut(str(value), 40)})")
    digits = text.lstrip("+-")
    if integer and len(digits) > 1 and digits[0] == "0" and digits[1] not in "xXbB":
        return (f"{cut(text, 40)!r} is an octal number in YAML 1.1 ({cut(str(value), 40)}) "
                "and a decimal one in YAML 1.2 and JSON", f"quote it (\"{cut(text, 40)}\") "
                "for the text, or write the number without the leading zero")
    return None
