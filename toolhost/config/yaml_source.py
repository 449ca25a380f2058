"""YAML text -> ``Doc``, keeping every node's line and column.

The text is composed (not constructed) with libyaml when available, so each node keeps its
mark; scalars are then built with PyYAML's safe constructor: SafeLoader semantics, no Python
tags. Mapping keys are kept as written (``on:`` stays the string ``"on"``), duplicate keys
are errors, merge keys (``<<: *base``) work, and tags other than the plain JSON-like ones
(``!!binary``, ``!!set``, custom ``!tags``) are rejected with their line.
"""

from __future__ import annotations

import functools
import re
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
from yaml.nodes import Node, ScalarNode

from toolhost.config.escapes import surrogate_hint
from toolhost.config.limits import LIMITS, toml_depth
from toolhost.config.load_budget import values_left, values_message
from toolhost.config.tree import Doc, Mark
from toolhost.config.yaml_walk import Recheck, Walker
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

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        # the composer asks once per scalar, in Python: the two commonest answers first (a
        # file of 499,000 numbers composed in 1.5 s instead of 2.1 s); the same tags
        if kind is ScalarNode and implicit[0] and value:
            if value.isascii() and value.isdigit() and (value[0] != "0" or len(value) == 1):
                return _INT_TAG  # [1-9][0-9]* or 0: only the int resolver matches it
            if value[0] not in _RESOLVED_FIRST and _NO_WILDCARD:
                return _STR_TAG  # no implicit resolver starts with this character
        return super().resolve(kind, value, implicit)


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))
_INT_TAG, _STR_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:str"
_RESOLVED_FIRST = frozenset(key for key in _Loader.yaml_implicit_resolvers if key)
_NO_WILDCARD = None not in _Loader.yaml_implicit_resolvers  # a resolver for any first character


def _syntax_hint(exc: yaml.MarkedYAMLError, text: str) -> str:
    """How to fix the YAML mistakes people make most: indentation, tabs, unquoted ': '."""
    problem, mark, start = exc.problem or "", exc.problem_mark, exc.context_mark
    if mark is not None and text[mark.index:mark.index + 1] == "\t":
        return "indent with spaces: YAML does not allow tabs"
    if "invalid Unicode character escape" in problem and mark is not None:
        return surrogate_hint(text, mark.line + 1)
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
    if _one_pass_safe(text):
        # Composed without the prescan; a clean walk that meets no node as deep as the limit
        # proves the prescan would have passed. Anything else takes the checked path below.
        try:
            nodes = list(yaml.compose_all(text, Loader=_Loader))
            if len(nodes) <= 1:
                return _doc(nodes, file, layer, problems, trusted=True,
                            shared="*" in text)
        except (yaml.YAMLError, UnicodeEncodeError, Recheck):
            pass
    return _checked(text, file, layer, problems)


def _one_pass_safe(text: str) -> bool:
    """Whether composing before the prescan is safe: libyaml itself refuses nesting past
    1,000 levels (its composer recurses once per level), the text has too few ``*`` to
    hold more aliases than the limit, and too few characters to hold more values (each
    value, even ``{a,b}``'s null ones, takes one character at least)."""
    return (len(text) < values_left() and text.count("*") <= LIMITS.aliases
            and _libyaml_bounds_nesting())


@functools.lru_cache(maxsize=1)
def _libyaml_bounds_nesting() -> bool:
    if _Base is yaml.SafeLoader:  # pragma: no cover - the pure-Python composer recurses
        return False
    for deep in ("[" * 1001 + "]" * 1001, "- " * 1001 + "x"):
        try:
            list(yaml.compose_all(deep, Loader=_Loader))
        except yaml.YAMLError as exc:
            if "nesting depth" in str(exc):
                continue
        return False
    return True


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


def _checked(text: str, file: str, layer: str, problems: list[Problem]) -> Doc | None:
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
    depth = aliases = values = 0
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
    return None


def _index(event: Any) -> int:
    mark = event.start_mark
    return mark.index if mark is not None else -1


_OPEN = (MappingStartEvent, SequenceStartEvent)
_CLOSE = (MappingEndEvent, SequenceEndEvent)
_VALUES = (*_OPEN, ScalarEvent, AliasEvent)
