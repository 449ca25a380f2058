"""Which tools a rule names, and whether any of them exists.

A rule whose pattern matches no tool never fires. ``validate`` reports it:

* a bare name that is not a Claude Code built-in (``bash``, ``Bassh``): an error when it is a
  near miss of a built-in (wrong case, a typo), a warning otherwise (a newer CLI may have it);
* ``mcp__<server>...`` where the config declares ``<server>``: an error when no tool of it
  matches (``mcp__files__lss``), with the nearest tool name;
* ``mcp__<server>...`` where it does not: an error when ``<server>`` is a near miss of a
  declared server (``mcp__devv``, ``mcp__Files``); otherwise a warning, since the CLI may
  reach servers configured outside this file that validate cannot see;
* servers declared with ``external:`` list their tools only when connected: any tool name is
  accepted offline; so are an imported server's (``mcp:``), except a name its config alone
  rules out (a tool it renames or leaves out by include/exclude: ``offline``).
"""

from __future__ import annotations

import bisect
import fnmatch
import functools
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from toolhost.permissions.names import NamePattern, split_wire_name, wire_readings

if TYPE_CHECKING:
    from toolhost.compile import CompiledTools
    from toolhost.config.model import HostConfig

__all__ = ["NameIndex", "TargetProblem", "ToolIndex", "check_target", "offline_globs", "tool_index"]


@dataclass(frozen=True)
class ToolIndex:
    """What validate knows: the declared tools by server, external servers, built-ins."""

    tools: Mapping[str, tuple[str, ...]]  # declared server -> tool names (external: ())
    external: frozenset[str]
    builtins: frozenset[str]
    # imported server not started -> why no tool of it can have a name: (reason, hint) or None
    offline: Mapping[str, Callable[[str], tuple[str, str] | None]] = field(
        default_factory=dict)

    @property
    def wire_names(self) -> list[str]:
        return [f"mcp__{s}__{t}" for s, names in self.tools.items() for t in names]

    @functools.cached_property
    def _names(self) -> NameIndex:
        return NameIndex([*self.wire_names, *sorted(self.builtins)])

    def matching(self, pattern: NamePattern) -> list[str]:
        """The declared tools and built-ins ``pattern`` matches (in the index's order)."""
        return self._names.matching(pattern)


class NameIndex:
    """The names a rule may match, indexed so a rule is tried only against those it could
    match: testing each rule against every name was rules x tools (10,000 of each held
    validate for minutes). By text, by every server a reading of them gives, by literal
    prefix and suffix (sorted, for globs); names with no reading (``mcp__x``) always."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.position = {n: i for i, n in enumerate(names)}
        self.by_server: dict[str, list[int]] = {}
        self.odd: list[int] = []
        for i, name in enumerate(names):
            readings = wire_readings(name)
            if not readings and name.startswith("mcp__"):
                self.odd.append(i)
            for server in {s for s, _ in readings}:
                self.by_server.setdefault(server, []).append(i)
        self.sorted = sorted(self.position)
        self.reversed = sorted(n[::-1] for n in self.position)

    def matching(self, pattern: NamePattern) -> list[str]:
        """The names ``pattern`` matches, in their order."""
        hits = self.candidates(pattern) | {
            self.position[n] for n in pattern.exact if n in self.position}
        return [self.names[i] for i in sorted(hits) if pattern.matches(self.names[i])]

    def candidates(self, pattern: NamePattern) -> set[int]:
        """Positions of the names ``pattern`` may match beyond its exact names."""
        literal = _server_of(pattern) if pattern.is_mcp else None
        server = pattern.server if pattern.server is not None else (
            literal[0] if literal is not None and pattern.glob is not None else None)
        if server is not None:  # only names with a reading of that server (or none) can
            return {*self.by_server.get(server, ()), *self.odd}
        if pattern.glob is None:  # exact names only
            return set()
        text = pattern.source
        if pattern.is_mcp and "__" not in text[5:]:
            text += "__*"  # mcp__git*: any tool of the servers it names
        head = re.split(r"[*?]", text, maxsplit=1)[0]
        tail = re.split(r"[*?]", text[::-1], maxsplit=1)[0]
        by_head = _starting(self.sorted, head)
        by_tail = _starting(self.reversed, tail)
        pool = by_head if len(by_head) <= len(by_tail) else [n[::-1] for n in by_tail]
        return {*(self.position[n] for n in pool), *self.odd}


def _starting(names: list[str], prefix: str) -> list[str]:
    """The names of sorted ``names`` that start with ``prefix``."""
    lo = bisect.bisect_left(names, prefix)
    hi = bisect.bisect_left(names, prefix + "\U0010ffff")
    return names[lo:hi]


@dataclass(frozen=True)
class TargetProblem:
    """A rule that names a tool it cannot match, with a hint to fix it."""

    level: str  # "error" | "warning"
    message: str
    hint: str = ""


def _near(name: str, candidates: Iterable[str]) -> str:
    pool = list(candidates)
    lowered = {c.lower(): c for c in pool}
    if name.lower() in lowered:
        return lowered[name.lower()]
    from toolhost.typos import close_matches

    found = close_matches(name, pool, n=1, cutoff=0.75)
    return found[0] if found else ""


def _declared(name: str, index: ToolIndex) -> list[str]:
    """The wire names of the declared tools ``name`` spells as SERVER.TOOL or as TOOL."""
    server, dot, tool = name.partition(".")
    if dot and tool in index.tools.get(server, ()):
        return [f"mcp__{server}__{tool}"]
    return [f"mcp__{s}__{name}" for s, names in sorted(index.tools.items()) if name in names]


def _server_of(pattern: NamePattern) -> tuple[str, str | None] | None:
    """(server, tool part or None) of an ``mcp__`` pattern with a literal server part."""
    rest = pattern.source[5:]
    server, sep, tool = rest.partition("__")
    if "*" in server or "?" in server:
        return None
    return server, (tool if sep else None)


def offline_globs(pattern: NamePattern, index: ToolIndex) -> list[str]:
    """The imported servers, not started (offline ``validate``), whose tools ``pattern``
    names by a glob: whether it matches one is known only from the upstream's list."""
    if not pattern.is_mcp or not index.offline:
        return []
    parts = _server_of(pattern)
    if parts is None:  # a glob over servers: each imported one it may reach
        server_glob = pattern.source[5:].partition("__")[0]
        return [s for s in index.offline if fnmatch.fnmatchcase(s, server_glob)]
    server, tool = parts
    if server in index.offline and tool and set(tool) & set("*?"):
        return [server]
    return []


def check_target(pattern: NamePattern, index: ToolIndex) -> TargetProblem | None:
    """Why ``pattern`` can match no tool this config can see, or None."""
    if not pattern.is_mcp:
        if pattern.glob is not None:
            if index.matching(pattern):
                return None
            return TargetProblem("warning", f"{pattern.source!r} matches no built-in tool")
        unknown = sorted(n for n in pattern.exact if n not in index.builtins)
        if not unknown:
            return None
        near = _near(unknown[0], index.builtins)
        if near:
            case = " (names are case-sensitive)" if near.lower() == unknown[0].lower() else ""
            return TargetProblem("error", f"{unknown[0]!r} is not a Claude Code tool{case}",
                                 f"did you mean {near!r}?")
        meant = _declared(unknown[0], index)
        if meant:  # `s.echo` (as `toolhost call` names it) or `echo`: never a rule's match
            return TargetProblem("error", f"{unknown[0]!r} is not a tool name a rule can "
                                 "match: a rule names a config's tool as mcp__SERVER__TOOL",
                                 f"did you mean {' or '.join(map(repr, meant[:3]))}?")
        if split_wire_name("mcp__" + unknown[0]) is None and "__" in unknown[0]:
            return TargetProblem("error", f"{unknown[0]!r} is not a tool name",
                                 f"did you mean 'mcp__{unknown[0]}'?")
        return TargetProblem("warning", f"{unknown[0]!r} is not a Claude Code built-in tool "
                             "this toolhost knows; the rule matches only a tool of exactly "
                             "that name")
    parts = _server_of(pattern)
    if parts is None:  # a server glob: tools of external servers are not known here
        if index.matching(pattern) or index.external:
            return None
        return TargetProblem("warning", f"{pattern.source!r} matches no tool declared in "
                             "this config; the rule can only match a tool of a server the "
                             "CLI reaches from elsewhere")
    server, tool = parts
    if server in index.external:
        why = index.offline.get(server)
        found = why(tool) if why is not None and tool and not set(tool) & set("*?") else None
        return TargetProblem("error", found[0], found[1]) if found else None
    if server not in index.tools:
        near = _near(server, index.tools)
        if near:
            shown = f"mcp__{near}" + (f"__{tool}" if tool else "")
            return TargetProblem("error", f"no server {server!r} is declared",
                                 f"did you mean {shown!r}?")
        return TargetProblem("warning", f"no server {server!r} is declared in this config; "
                             "the rule can only match a server the CLI reaches from elsewhere")
    if index.matching(pattern):
        return None
    names = index.tools[server]
    near = _near(tool or "", names)
    return TargetProblem("error", f"server {server!r} has no tool matching {tool!r} (tools: "
                         + (", ".join(names) or "none") + ")",
                         f"did you mean 'mcp__{server}__{near}'?" if near else "")


def tool_index(config: HostConfig, compiled: CompiledTools | None = None,
               unsure: Collection[str] = ()) -> ToolIndex:
    """The tools rules may name: the config's (by server), external servers, built-ins.

    An imported server's (``mcp:``) tools are known only once it was started (``compiled``
    has them); offline it counts as external: only the names its config alone rules out (a
    renamed or excluded tool) are reported. ``unsure``: what the loader refused part of, so
    that a rule naming it is no second line about the same mistake: a tool (``S.T``, which a
    wrong key may have dropped) counts as declared, a server (``S``) as external."""
    from toolhost.permissions.builtin_names import BUILTIN_TOOLS

    started = {name: tuple(t.name for t in tools)
               for name, tools in (compiled.servers.items() if compiled else ())
               if config.servers.get(name) is not None
               and config.servers[name].upstream is not None and tools}
    tools = {name: started.get(name, tuple(s.tools)) for name, s in config.servers.items()}
    for server, _, tool in (u.partition(".") for u in sorted(unsure) if "." in u):
        if server in tools and tool not in tools[server]:
            tools[server] = (*tools[server], tool)
    return ToolIndex(
        tools=tools,
        external=frozenset(n for n, s in config.servers.items()
                           if s.external is not None
                           or (s.upstream is not None and n not in started))
        | {u for u in unsure if "." not in u},
        builtins=BUILTIN_TOOLS, offline=_offline(config, set(started)))


def _offline(config: HostConfig, started: set[str]
             ) -> dict[str, Callable[[str], tuple[str, str] | None]]:
    """For each imported server not started: why its config alone rules a tool name out."""
    upstreams = {n: s.upstream for n, s in config.servers.items()
                 if s.upstream is not None and s.external is None and n not in started}
    if not upstreams:
        return {}
    from toolhost.gateway.reshape import never_shown

    return {n: functools.partial(never_shown, spec, n) for n, spec in upstreams.items()}
