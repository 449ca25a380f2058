"""Deny and ask rules that match nothing stop ``serve`` and ``run``: fail closed.

A deny or ask rule is a guard somebody relies on (a team's ``deny: [mcp__tasks__deleteTask]``).
Any later layer can leave it with nothing to guard: rename the tool (``tools.deleteTask.name:
remove_task``), leave it out (``exclude``, ``include``), rename the server's tools so that
another one takes the name. The rule follows the name, not the tool, so the call would then
run unguarded. ``validate`` reports such a rule as an error; ``dead_guards`` finds the same
ones for the hosts that serve (``toolhost.host.load_host``), which refuse to start with them,
naming the rule's line, as ``validate`` does:

* a deny/ask rule whose target is an error for ``check_target`` (no tool of a declared server
  matches it, a near miss of a declared server or a built-in, a name an imported server's
  config rules out);
* a deny/ask rule that matches a tool's name before a rename and not after
  (``renamed_away``): the tool it guarded is still served, under a name the rule misses.

Allow rules are not checked here: an allow that matches nothing allows nothing.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from toolhost.config.model import HostConfig, Origin, RuleConfig
from toolhost.errors import Problem
from toolhost.permissions.names import NamePattern, parse_name_pattern
from toolhost.permissions.targets import check_target, tool_index

if TYPE_CHECKING:
    from toolhost.compile import CompiledTools

__all__ = ["GUARDS", "Rename", "dead_guards", "renamed_away", "renames"]

GUARDS = ("deny", "ask")


@dataclass(frozen=True)
class Rename:
    """A tool served under another name than the one it would have: ``server``'s ``former``
    tool is called ``name``, renamed where ``origin`` says."""

    server: str
    former: str
    name: str
    origin: Origin


def renames(config: HostConfig) -> list[Rename]:
    """Every rename the config makes: an imported server's ``tools.<upstream>.name`` (of a
    tool include/exclude choose) and an OpenAPI operation's ``tools.<operation>.name``."""
    found: list[Rename] = []
    for server_name, server in config.servers.items():
        spec = server.upstream
        if spec is not None and server.external is None:
            for upstream, reshape in spec.reshape.items():
                if not reshape.name or reshape.name == upstream or not _chosen(spec, upstream):
                    continue
                where = config.origins.get(f"servers.{server_name}.tools.{upstream}.name",
                                           reshape.origin)
                found.append(Rename(server_name, upstream, reshape.name, where))
        for tool in server.tools.values():
            if tool.renamed_from is not None:
                former, where = tool.renamed_from
                found.append(Rename(server_name, former, tool.name, where))
    return found


def _chosen(spec: object, name: str) -> bool:
    include = getattr(spec, "include", ("*",))
    exclude = getattr(spec, "exclude", ())
    return (any(fnmatch.fnmatchcase(name, g) for g in include)
            and not any(fnmatch.fnmatchcase(name, g) for g in exclude))


def renamed_away(pattern: NamePattern, found: Iterable[Rename]) -> tuple[str, str] | None:
    """(message, hint) when ``pattern`` matches a tool's name before one of the renames
    ``found`` and not after it, or None."""
    for rename in found:
        former = f"mcp__{rename.server}__{rename.former}"
        now = f"mcp__{rename.server}__{rename.name}"
        if pattern.matches(former) and not pattern.matches(now):
            where = rename.origin
            at = f"{where.file}:{where.line}" if where.line else where.file
            return (f"tool {former!r} is renamed to {now!r} ({at}), so the rule no longer "
                    "matches it: the tool would run unguarded",
                    f"name {now!r} in the rule, or remove the rename")
    return None


def _target(rule: RuleConfig) -> NamePattern | None:
    try:
        return parse_name_pattern(rule.tool.strip().split("(", 1)[0])
    except ValueError:
        return None  # the loader and compile_policy say why


def dead_guards(config: HostConfig, compiled: CompiledTools | None = None) -> list[Problem]:
    """The deny and ask rules of ``config`` that can guard nothing they were written for,
    each located at its rule, worded as ``validate`` words it."""
    rules = [r for r in config.permissions.rules if r.effect in GUARDS]
    if not rules:
        return []
    index = tool_index(config, compiled)
    found = renames(config)
    problems: list[Problem] = []
    for rule in rules:
        pattern = _target(rule)
        if pattern is None:
            continue
        target = check_target(pattern, index)
        if target is not None and target.level == "error":
            problems.append(rule.origin.problem(f"permission rule {rule.tool!r}: "
                                                f"{target.message}", hint=target.hint))
            continue
        away = renamed_away(pattern, found)
        if away is not None:
            problems.append(rule.origin.problem(f"permission rule {rule.tool!r}: {away[0]}",
                                                hint=away[1]))
    return problems
