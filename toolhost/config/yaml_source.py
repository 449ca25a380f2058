"""YAML text -> ``Doc``, keeping every node's line and column.

The data is built straight from libyaml's events (``yaml_events``: no node tree), so each
value keeps its mark; scalars are built as PyYAML's safe constructor builds them: SafeLoader
semantics, no Python tags. Mapping keys are kept as written (``on:`` stays the string
``"on"``), duplicate keys are errors, merge keys (``<<: *base``) work, and tags other
than the plain JSON-like ones (``!!binary``, ``!!set``, custom ``!tags``) are rejected with
their line.
"""

from __future__ import annotations

import re
from typing import Any

import toolhost.config.yaml_prime  # noqa: F401  (before PyYAML: its slowest pattern)

# isort: split
import yaml
from yaml.nodes import ScalarNode

from toolhost.config.escapes import surrogate_hint
from toolhost.config.limits import LIMITS, toml_depth
from toolhost.config.load_budget import values_left
from toolhost.config.tree import Doc, format_path
from toolhost.config.yaml_events import Limit, build_doc, syntax_path
from toolhost.errors import Problem
from toolhost.excerpt import cut

__all__ = ["parse_yaml", "path_at"]

try:  # libyaml is ~10x faster on big files; the pure-Python loader gives the same events
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
    if mark is not None and text[mark.index:mark.index + 1] == ":":
        # YAML allows an implicit key of at most 1,024 characters; libyaml reports a longer
        # one as a misplaced ':' (or a missing ',' in a flow mapping)
        before = text[text.rfind("\n", 0, mark.index) + 1:mark.index]
        key = _KEY_START.split(before)[-1]
        if len(key) > 1024 and ": " not in key:  # (else a value holding ": ", below)
            return (f"a mapping key of {len(key):,} characters: YAML reads a key of at most "
                    "1,024 on one line; shorten it")
    if "mapping values are not allowed" in problem:
        return "quote a value that contains ': ', as in description: \"Note: this\""
    if problem.startswith("did not find expected key") and start is not None and mark is not None:
        return (f"check the indentation of line {mark.line + 1}: the keys of one mapping "
                "line up")
    return ""


_KEY_START = re.compile(r"^\s*(?:-\s+)*|[{,\[]\s*")
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
            "text around it would change", file, line, column, path_at(text, odd.start()),
            hint="write it escaped inside double quotes (\\N, \\L, \\P) or remove it"))
        return None
    return _parse(text, file, layer, problems)


def _parse(text: str, file: str, layer: str, problems: list[Problem]) -> Doc | None:
    """Build the data from libyaml's events (``yaml_events``); a problem of the text itself
    (a syntax error, a limit, an undefined alias, a second document) is the only one."""
    before = len(problems)
    reached = [0, -1]  # the depth and the place of the last event seen, when libyaml stops
    loader = None
    try:
        loader = _Loader(text)  # libyaml takes the text as UTF-8: a lone surrogate stops here
        doc, documents, line = build_doc(loader, file, layer, problems, values_left(), reached,
                                         "*" in text)
    except Limit as exc:
        del problems[before:]
        problems.append(exc.problem)
        return None
    except yaml.MarkedYAMLError as exc:
        del problems[before:]
        if "nesting depth" in str(exc) and _Base is not yaml.SafeLoader:
            problems.append(_too_deep(exc, text, reached, file))
            return None
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        message = f"invalid YAML: {cut(str(exc.problem or exc.context), 300)}"
        start = exc.context_mark
        if exc.problem and exc.context and start is not None and start.line + 1 != line:
            # an unclosed bracket or quote is found lines later: say where it opened
            message += f" ({exc.context} at line {start.line + 1}, column {start.column + 1})"
        from toolhost.config.conflicts import conflicted  # (only when it failed)

        problems.append(conflicted(Problem(message, file, line, col, syntax_path(exc),
                                           hint=_syntax_hint(exc, text)), text, "YAML"))
        return None
    except UnicodeEncodeError as exc:  # a lone surrogate: text that came from no UTF-8 file
        del problems[before:]
        line = text.count("\n", 0, exc.start) + 1
        problems.append(Problem("invalid YAML: not UTF-8 text (a lone surrogate)", file, line,
                                exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1))
        return None
    except yaml.reader.ReaderError as exc:  # a control character, e.g. NUL: say where it is
        del problems[before:]
        at = max(exc.position, 0)
        line = text.count("\n", 0, at) + 1
        char = exc.character
        char = char if isinstance(char, int) else ord(char[:1] or " ")
        problems.append(Problem(f"invalid YAML: control character U+{char:04X} is not allowed",
                                file, line, at - (text.rfind("\n", 0, at) + 1) + 1,
                                path_at(text, at)))
        return None
    except yaml.YAMLError as exc:
        del problems[before:]
        problems.append(Problem(f"invalid YAML: {cut(' '.join(str(exc).split()), 300)}",
                                file))
        return None
    finally:
        if loader is not None:
            loader.dispose()
    if documents > 1:
        del problems[before:]
        holder = {"scenario": "a scenario file", "openapi": "an OpenAPI document"}.get(
            layer, "a config file")
        problems.append(Problem(f"{holder} holds one YAML document, found "
                                f"{documents} (remove the extra '---')", file, line, 1))
        return None
    return doc


def _too_deep(exc: yaml.MarkedYAMLError, text: str, reached: list[int], file: str) -> Problem:
    """libyaml 0.2.6 (PyYAML 6.0.4's wheels) stops at 1,000 levels while scanning ahead,
    before the events reach our limit (at most MAX_CONFIG_DEPTH, far below): the text is
    deeper than the limit, and libyaml's mark is where it went past 1,000."""
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    path = ""
    if mark is not None:  # a flow collection opened on that line: the bracket past ours
        start = text.rfind("\n", 0, mark.index) + 1
        depth, last = reached
        if last >= start:  # events of this line were seen: the depth where it began
            seen = text[start:last + 1]
            depth -= seen.count("[") + seen.count("{") - seen.count("]") - seen.count("}")
        deep = toml_depth(text[start:mark.index], max(LIMITS.depth - depth, 0))
        column = deep + 1 if deep >= 0 else column
        if deep >= 0:  # the text up to that bracket nests no deeper than it: its events
            # reach our limit, which names the key path
            path = _deep_path(text[:start + deep + 1], file)
    return Problem(f"nested more than {LIMITS.depth} mappings or lists deep", file, line,
                   column, path, hint="raise TOOLHOST_MAX_CONFIG_DEPTH if this is meant")


def _deep_path(text: str, file: str) -> str:
    """The key path where ``text`` (which ends with the bracket one level too deep) passes
    the nesting limit, as the event builder names it ("" if it does not get there)."""
    loader = _Loader(text)
    try:
        build_doc(loader, file, "", [], len(text) + 1, [0, -1], False)
    except Limit as exc:
        return exc.problem.key_path
    except yaml.YAMLError:  # the end of the cut text, had the limit not come first
        return ""
    finally:
        loader.dispose()
    return ""


_UNREADABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\x85\u2028\u2029"
                         "\ud800-\udfff\ufffe\uffff]")


def path_at(text: str, at: int) -> str:
    """The key path of the value written at offset ``at``, where a character libyaml
    refuses before it parses anything stands: the text up to the end of that line is built
    with such characters blanked, and the last key or item that starts before ``at`` is it
    (or the path where that cut text stops)."""
    end = text.find("\n", at)
    head = _UNREADABLE.sub(" ", text[:len(text) if end < 0 else end])
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    problems: list[Problem] = []
    loader = _Loader(head)
    try:
        doc, _, _ = build_doc(loader, "", "", problems, len(head) + 1, [0, -1], "*" in head)
    except Limit as exc:
        return exc.problem.key_path
    except yaml.MarkedYAMLError as exc:
        return syntax_path(exc)
    except yaml.YAMLError:  # pragma: no cover (the blanked text has no reader error)
        return ""
    finally:
        loader.dispose()
    last: tuple[Any, ...] = ()
    for path, mark in doc.marks.items():  # in the order of the text
        if (mark.line, mark.column) <= (line, column) and path:
            last = path
    return cut(format_path(last), 200)
