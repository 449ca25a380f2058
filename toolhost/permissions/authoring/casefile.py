"""Policy test files for ``toolhost permissions test``: which config, then the cases.

A case file is YAML or TOML (the same readers as configs, so errors carry file:line)::

    config: toolhost.yaml          # relative to this file
    cases:
      - name: reading the source is fine
        tool: Read
        input: {file_path: src/app.py}
        expect: allow
        rule: Read(./src/**)       # optional: the rule's text, its file:line, or "default"
      - tool: mcp__db__query
        input: {table: orders, limit: 500}
        expect: allow
        updated_input: {table: orders, limit: 100}   # optional: what a rewrite must give
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.config.model import Origin
from toolhost.config.sources import read_doc
from toolhost.config.tree import Doc, mark_for
from toolhost.errors import Problem
from toolhost.excerpt import cut
from toolhost.typos import close_matches

__all__ = ["CASE_KEYS", "Case", "CaseFile", "read_case_file"]

TOP_KEYS = ("config", "cwd", "cases")
CASE_KEYS = ("name", "tool", "input", "expect", "rule", "updated_input", "caller")
EXPECT = ("allow", "deny", "ask")
MAX_BYTES = 16 * 1024 * 1024  # a case file is text a team writes; refuse anything larger


@dataclass(frozen=True)
class Case:
    """One expectation: ``tool`` called with ``input`` is decided ``expect``."""

    name: str
    tool: str
    input: Mapping[str, Any]
    expect: str
    origin: Origin
    rule: str | None = None
    updated_input: Mapping[str, Any] | None = None
    caller: Mapping[str, Any] | None = None  # an access token's claims (sub, groups, scope)


@dataclass
class CaseFile:
    """A policy test file: its cases, the config they test, and the problems reading it."""

    path: str
    config: str | None = None  # absolute, or None when missing
    cwd: str | None = None
    cases: list[Case] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)  # shown; the cases still run
    # cases not run: a value of theirs was refused while reading (a 5,000-digit integer,
    # .inf), so what would be decided is not the call written
    not_run: int = 0


class _Reader:
    def __init__(self, doc: Doc, out: CaseFile) -> None:
        self.doc = doc
        self.out = out

    def origin(self, path: tuple[Any, ...]) -> Origin:
        return mark_for(self.doc.marks, path, self.doc.file).origin(path)

    def problem(self, path: tuple[Any, ...], message: str, hint: str = "") -> None:
        self.out.problems.append(self.origin(path).problem(message, hint=hint))

    def known(self, data: Mapping[str, Any], path: tuple[Any, ...], keys: tuple[str, ...]
              ) -> None:
        for key in data:
            if key not in keys:
                close = close_matches(str(key), keys, n=1)
                self.problem((*path, key), f"unknown key {cut(str(key), 60)!r} (keys: "
                             + ", ".join(keys) + ")",
                             f"did you mean {close[0]!r}?" if close else "")

    def path_value(self, data: Mapping[str, Any], key: str) -> str | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value.strip():
            self.problem((key,), f"expected a path, got {_kind(value)}")
            return None
        base = os.path.dirname(os.path.abspath(self.out.path))
        return os.path.normpath(os.path.join(base, os.path.expanduser(value)))

    def case(self, item: Any, index: int) -> Case | None:
        path: tuple[Any, ...] = ("cases", index)
        if not isinstance(item, Mapping):
            self.problem(path, f"a case is a mapping with tool, input and expect, got "
                         f"{_kind(item)}")
            return None
        self.known(item, path, CASE_KEYS)
        ok = True
        tool = item.get("tool")
        if not isinstance(tool, str) or not tool.strip():
            self.problem((*path, "tool") if "tool" in item else path,
                         "expected the tool name as the CLI asks about it (mcp__server__tool, "
                         f"Bash, Read, ...), got {_kind(tool)}")
            ok = False
        expect = item.get("expect")
        if expect not in EXPECT or isinstance(expect, bool):
            close = close_matches(str(expect), EXPECT, n=1)
            self.problem((*path, "expect") if "expect" in item else path,
                         f"expect must be allow, deny or ask, got {_kind(expect)}",
                         f"did you mean {close[0]!r}?" if close else "")
            ok = False
        tool_input = item.get("input", {})
        if not isinstance(tool_input, Mapping):
            self.problem((*path, "input"), f"input must be a mapping of arguments, got "
                         f"{_kind(tool_input)}")
            ok = False
        for key in ("name", "rule"):
            if key in item and not isinstance(item[key], str):
                self.problem((*path, key), f"{key} must be a string, got {_kind(item[key])}")
                ok = False
        updated = item.get("updated_input")
        if updated is not None and not isinstance(updated, Mapping):
            self.problem((*path, "updated_input"), "updated_input must be a mapping, got "
                         f"{_kind(updated)}")
            ok = False
        caller = item.get("caller")
        if caller is not None:
            from toolhost.permissions.callers.check import caller_from_options

            try:
                if not isinstance(caller, Mapping):
                    raise ValueError(f"must be a mapping of token claims (sub, groups, "
                                     f"scope), got {_kind(caller)}")
                caller_from_options(caller, None, (), ())
            except ValueError as exc:
                self.problem((*path, "caller"), f"caller {exc}")
                ok = False
        if not ok:
            return None
        self.yaml11_booleans(tool_input, (*path, "input"))
        if isinstance(updated, Mapping):
            self.yaml11_booleans(updated, (*path, "updated_input"))
        shown = cut(json.dumps(tool_input, ensure_ascii=False, default=str), 60)
        return Case(name=item.get("name") or f"{cut(str(tool), 80)} {shown}",
                    tool=str(tool), input=dict(tool_input), expect=str(expect),
                    origin=self.origin(path), rule=item.get("rule"), updated_input=updated,
                    caller=caller)


    def yaml11_booleans(self, value: Any, path: tuple[Any, ...]) -> None:
        """Warn of each boolean in ``value`` written as a YAML 1.1 word (``off``, ``no``,
        ``yes``, ``on``): the CLI sends JSON, where that is the string, so a
        case with it tests a call that cannot come (a deny may pass by type mismatch)."""
        items = value.items() if isinstance(value, Mapping) else (
            enumerate(value) if isinstance(value, list) else ())
        for key, item in items:
            if isinstance(item, bool):
                word = _written(self.doc, (*path, key))
                if word is not None and word.lower() in _YAML11_WORDS:
                    self.out.warnings.append(self.origin((*path, key)).problem(
                        f"{word} is read as the boolean {str(item).lower()} (YAML 1.1); the "
                        f"CLI sends JSON, where a model's {word} is the string {word!r}",
                        hint=f'write "{word}" for the string or {str(item).lower()} for the '
                        "boolean"))
            elif isinstance(item, (Mapping, list)) and len(path) < 64:
                self.yaml11_booleans(item, (*path, key))


_YAML11_WORDS = frozenset({"yes", "no", "on", "off", "y", "n"})
_AFTER_KEY = re.compile(r"""\s*(?:"(?:[^"\\]++|\\.)*+"|'[^']*'|[^:\n]*?)\s*:\s*([^\s,}\]#]+)""")
_ITEM = re.compile(r"\s*(?:-\s+)?([^\s,}\]#]+)")


def _written(doc: Doc, path: tuple[Any, ...]) -> str | None:
    """The scalar as written at ``path`` (on the line of its mark), if it can be found."""
    mark = doc.marks.get(path)
    if mark is None or not mark.line or not doc.file.endswith((".yaml", ".yml")):
        return None
    lines = _source_lines(doc.file)
    if mark.line > len(lines):
        return None
    rest = lines[mark.line - 1][max(mark.column - 1, 0):]
    m = (_AFTER_KEY if isinstance(path[-1], str) else _ITEM).match(rest)
    return m.group(1) if m else None


def _source_lines(file: str) -> list[str]:
    try:
        with open(file, encoding="utf-8", errors="replace") as handle:
            return handle.read(MAX_BYTES).splitlines()
    except OSError:
        return []


def _kind(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, (str, int, float, bool)):
        return f"{type(value).__name__} {cut(json.dumps(value), 60)}"
    if isinstance(value, list):
        return "an empty list" if not value else "a list"
    return type(value).__name__ if not isinstance(value, Mapping) else "a mapping"


def read_case_file(path: str, *, need_config: bool = True) -> CaseFile:
    """Read and check one case file; every problem goes to ``CaseFile.problems``.
    ``need_config``: a missing ``config:`` is a problem (not when ``--config`` gives it)."""
    out = CaseFile(path)
    try:
        size = os.path.getsize(path)
    except OSError as exc:
        out.problems.append(Problem(f"cannot read: {exc.strerror or exc}", path))
        return out
    if size > MAX_BYTES:
        out.problems.append(Problem(f"the file is {size} bytes; a case file may have at most "
                                    f"{MAX_BYTES}", path))
        return out
    try:
        doc = read_doc(path, "cases", out.problems)
    except RecursionError:
        out.problems.append(Problem("the file nests too deeply to read", path))
        return out
    if doc is None or doc.partial:  # after a stop (an alias bomb) the stop is the problem:
        return out  # the keys read so far are not the file's, so no "unknown"/"missing" line
    if not isinstance(doc.data, Mapping):
        out.problems.append(Problem("a case file is a mapping with config and cases", path, 1, 1))
        return out
    if "toolhost" in doc.data and "cases" not in doc.data:  # a config passed for its cases
        from toolhost.permissions.authoring.case_hint import config_not_cases

        out.problems.append(Problem(config_not_cases(path), path, 1, 1))
        return out
    reader = _Reader(doc, out)
    reader.known(doc.data, (), TOP_KEYS)
    out.config = reader.path_value(doc.data, "config")
    out.cwd = reader.path_value(doc.data, "cwd")
    if out.cwd is not None and not os.path.isdir(out.cwd):  # relative paths would
        out.warnings.append(reader.origin(("cwd",)).problem(  # be read against nothing
            f"cwd {out.cwd!r} is not a directory here: the cases' relative paths and the "
            "files a command reads (a patch, an archive, a repository) are judged against it",
            hint="name the directory the config runs in"))
    if "config" not in doc.data and need_config:
        out.problems.append(Problem("missing 'config': the config file these cases test", path,
                                    1, 1, hint="or pass --config"))
    elif doc.data.get("config") is None and need_config:  # `config:` left empty: no case would
        reader.problem(("config",), "expected the path of the config file these cases test, "
                       "got nothing", hint="or pass --config")  # run, and the file passed
    cases = doc.data.get("cases")
    if not isinstance(cases, list) or not cases:
        reader.problem(("cases",) if "cases" in doc.data else (),
                       f"expected a non-empty list of cases, got {_kind(cases)}")
        return out
    refused = {int(m.group(1)) for p in out.problems
               if (m := _CASE_PATH.match(p.key_path)) is not None}
    for index, item in enumerate(cases):
        case = reader.case(item, index)
        if case is not None and index in refused:
            out.not_run += 1
        elif case is not None:
            out.cases.append(case)
    return out


_CASE_PATH = re.compile(r"cases\[(\d+)\]")
