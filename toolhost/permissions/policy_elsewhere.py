"""Tools that read a relative path elsewhere than the rules' directory: their
rules' path conditions judge absolute values alone (``CompiledRule.read_elsewhere``)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from toolhost.permissions.expr.core import ExprError
from toolhost.permissions.rules import CompiledRule

__all__ = ["Elsewhere", "held_in_place"]


class Elsewhere:
    """The names (wire names, or ``mcp__server__`` prefixes) whose tools read a relative path
    elsewhere than ``cwd`` or somewhere unknown, and their rules made once each."""

    def __init__(self, reading_dirs: Mapping[str, str | None], cwd: str) -> None:
        self.cwd = cwd
        self.names = _reading_elsewhere(reading_dirs, cwd)
        # tools reading where this process runs now (python, command without a cwd), and
        # where that was: a move (an embedder's, one no guard saw) takes their relative
        # paths away from the rules' directory
        self.start = _cwd_now()
        self.drifting = frozenset(_reading_in(reading_dirs, self.start, self.names))
        self.away: dict[int, CompiledRule] = {}  # position of a rule -> the rule made so
        self._original: dict[int, CompiledRule] = {}  # id of such a rule -> the rule

    def covers(self, tool_name: str) -> bool:
        """Whether ``tool_name`` reads a relative path elsewhere than the rules' directory."""
        return any(tool_name == name or (name.endswith("__") and tool_name.startswith(name))
                   for name in self.names)

    def moved(self, tool_name: str) -> bool:
        """Whether ``tool_name`` reads where this process runs and it has moved since the
        rules were made (a syscall: asked per decision, never cached)."""
        return tool_name in self.drifting and _cwd_now() != self.start

    def rule(self, i: int, rules: tuple[CompiledRule, ...]) -> CompiledRule:
        """Rule ``i`` of ``rules`` as it judges a tool reading elsewhere."""
        rule = self.away.get(i)
        if rule is None:
            rule = self.away[i] = rules[i].read_elsewhere()
            if rule is not rules[i]:
                self._original[id(rule)] = rules[i]  # (kept alive by ``away``)
        return rule

    def unjudged(self, rules: Iterable[CompiledRule], tool_name: str,
                 tool_input: Mapping[str, Any]) -> str:
        """Why an allow rule whose path condition met a relative path of a tool reading
        elsewhere did not allow the call ("" when none would have)."""
        for rule in rules:
            original = self._original.get(id(rule))
            if rule.effect != "allow" or original is None:
                continue
            try:
                if original.matches(tool_name, tool_input):
                    if self.moved(tool_name):
                        return (f"Permission rule {rule.text!r} ({rule.origin}) judges a "
                                f"relative path against {self.cwd}, but {tool_name} reads "
                                "where toolhost runs, and its working directory has moved "
                                f"from {self.start} to {_cwd_now() or 'a removed directory'}"
                                ": send an absolute path.")
                    return (f"Permission rule {rule.text!r} ({rule.origin}) judges a relative "
                            f"path against {self.cwd}, but {tool_name} reads paths elsewhere "
                            "(its own working directory, or another machine): send an "
                            "absolute path.")
            except ExprError:
                continue
        return ""


def _cwd_now() -> str:
    try:
        return os.getcwd()
    except OSError:  # (a removed directory: elsewhere)
        return ""


def _reading_in(reading_dirs: Mapping[str, str | None], start: str,
                away: tuple[str, ...]) -> list[str]:
    """The wire names (not prefixes) of ``reading_dirs`` reading in ``start``."""
    here = os.path.realpath(start) if start else ""
    return [name for name, where in reading_dirs.items()
            if where is not None and name not in away and not name.endswith("__")
            and (where == start or os.path.realpath(where) == here)]


def _reading_elsewhere(reading_dirs: Mapping[str, str | None], cwd: str) -> tuple[str, ...]:
    """The names whose tools read relative paths elsewhere than ``cwd`` (or somewhere
    unknown). Each directory is resolved once: most tools share one, and two ``realpath``
    calls per tool were 5% of loading 1,000 tools."""
    here = os.path.realpath(cwd)
    away: dict[str, bool] = {}
    out = []
    for name, where in reading_dirs.items():
        if where is not None and where not in away:
            away[where] = os.path.realpath(where) != here
        if where is None or away[where]:
            out.append(name)
    return tuple(out)


def held_in_place(rules: Iterable[CompiledRule], bash_guards: Iterable[CompiledRule],
                  cwd: str) -> CompiledRule | None:
    """The first rule that judges against the start folder and that a session moved into
    another one (EnterWorktree) could dodge: a deny or ask ``Bash(...)`` rule (the
    scripts, Makefiles and repositories later commands run are read in the start folder),
    or a deny or ask path rule anchored in the start folder (``Read(./secrets/**)``: the
    worktree's copy is elsewhere). None: no such rule."""
    guard = next(iter(bash_guards), None)
    if guard is not None:
        return guard
    from toolhost.permissions.content import PathMatcher

    here = cwd.rstrip("/") + "/"
    for rule in rules:
        if rule.effect == "allow":
            continue
        if isinstance(rule.content, PathMatcher):
            if (rule.content.pattern.base.rstrip("/") + "/").startswith(here):
                return rule
            continue
        # the structured form: a path condition anchored there, or an expression
        # on a file tool (what it tests cannot be read)
        if rule.expr is not None and any(rule.names.matches(t) for t in _SESSION_FILE_TOOLS):
            return rule
        when = rule.config.when if rule.config is not None else None
        if when and any(_anchored(op, arg, here) for op, arg in _tests(when)):
            return rule
    return None


# the CLI's tools that read or write files where the session is (EnterWorktree moves them)
_SESSION_FILE_TOOLS = ("Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "NotebookRead",
                       "Glob", "Grep", "LS")


def _tests(when: Mapping[str, Any]) -> Iterable[tuple[str, Any]]:
    """Each (operator, argument) of a rule's ``when`` (nested argument maps included)."""
    for key, spec in when.items():
        if isinstance(spec, Mapping):
            if key in ("path_under", "path_glob", "glob", "regex"):
                continue
            yield from _tests(spec)
        else:
            yield key, spec


def _anchored(op: str, arg: Any, here: str) -> bool:
    """Whether a path test names files in the start folder: a relative ``path_under`` /
    ``path_glob`` (the config's folder), or a value naming the start folder's path."""
    if op not in ("path_under", "path_glob", "glob", "regex") or not isinstance(arg, str):
        return False
    if op in ("path_under", "path_glob") and not arg.startswith(("/", "~", "${")):
        return True
    return here.rstrip("/") in arg.replace("\\", "")
