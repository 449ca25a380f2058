"""The earlier rules a rule could be hidden by, found without comparing every pair.

``lint_policy`` reports a rule as ``duplicate`` or ``shadowed`` by the FIRST earlier rule
that repeats it or matches every call it could match. Comparing each rule with every earlier
one is quadratic (10,000 generated per-tool rules: minutes), so earlier rules are indexed by
what a name must be for them to match it: the same text, an exact name, a server, or the
literal prefix / suffix of a glob. Only the candidates of the indexes are compared (in the
order of the policy, so the finding names the same rule as a full comparison would). Globs
that start and end with a wildcard (``*x*``) have no key: at most ``MAX_WILD`` of them are
compared per rule (a policy of thousands of those is not checked past that many).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable

from toolhost.permissions.names import NamePattern, wire_readings
from toolhost.permissions.rules import CompiledRule

__all__ = ["MAX_WILD", "DeclaredNames", "EarlierRules"]

MAX_WILD = 200  # unkeyed globs compared per rule
# a path rule anchored at its own file's directory: the same text in two files differs
_FILE_ANCHORED = re.compile(r"\(\s*/(?!/)")


def _literal_ends(source: str) -> tuple[str, str]:
    """The text before the first wildcard and after the last one."""
    first = min((i for i in (source.find("*"), source.find("?")) if i >= 0), default=-1)
    last = max(source.rfind("*"), source.rfind("?"))
    return source[:first], source[last + 1:]


class EarlierRules:
    """The rules seen so far, indexed; :meth:`first_hiding` finds the first of them that
    hides a later rule (``same`` says it repeats it, ``covers`` that it matches all it does)."""

    def __init__(self) -> None:
        self._text: dict[tuple[str, str], int] = {}
        self._content: dict[str, int] = {}  # Tool(...) rules with nothing else, by text
        self._exact: defaultdict[str, list[int]] = defaultdict(list)
        self._server: defaultdict[str, list[int]] = defaultdict(list)
        self._prefix: defaultdict[str, list[int]] = defaultdict(list)
        self._suffix: defaultdict[str, list[int]] = defaultdict(list)
        self._prefix_sizes: set[int] = set()
        self._suffix_sizes: set[int] = set()
        self._wild: list[int] = []
        self._rules: list[CompiledRule] = []

    def add(self, rule: CompiledRule) -> None:
        index = len(self._rules)
        self._rules.append(rule)
        self._text.setdefault((rule.text, rule.effect), index)
        if rule.content is not None and not rule.conditions and rule.expr is None and (
                rule.callers is None) and not _FILE_ANCHORED.search(rule.text):
            self._content.setdefault(rule.text, index)  # Bash(npm test:*) in two layers
        if not rule.unconditional:
            return  # hides nothing: only a repeat of its text is reported
        names: NamePattern = rule.names
        for name in names.exact:
            self._exact[name].append(index)
        if names.server is not None:
            self._server[names.server].append(index)
        if names.glob is not None:
            source = names.source + ("__*" if names.is_mcp and "__" not in names.source[5:]
                                      else "")
            prefix, suffix = _literal_ends(source)
            # "mcp__" begins every MCP glob: 10,000 mcp__*__tN rules in its one bucket were
            # tried pairwise (minutes); their literal end tells them apart
            if suffix and len(prefix) <= len("mcp__"):
                prefix = ""
            if prefix:
                self._prefix[prefix].append(index)
                self._prefix_sizes.add(len(prefix))
            elif suffix:
                self._suffix[suffix].append(index)
                self._suffix_sizes.add(len(suffix))
            else:
                self._wild.append(index)

    def first_hiding(self, rule: CompiledRule, probes: list[str],
                     covers: Callable[[CompiledRule, CompiledRule], bool]
                     ) -> tuple[CompiledRule, bool] | None:
        """The first earlier rule that repeats ``rule`` (True) or covers it (False).
        ``probes``: names ``rule`` matches; an earlier rule must match the first to cover."""
        best = self._text.get((rule.text, rule.effect))
        hit = (best, True) if best is not None else None
        if hit is None and (same := self._content.get(rule.text)) is not None:
            hit = (same, False)  # the same Tool(...) text with another effect, earlier
        if probes:
            probe = probes[0]
            buckets: list[Iterable[int]] = [self._exact.get(probe, ())]
            buckets += [self._server.get(s, ()) for s, _ in wire_readings(probe)]
            # only the lengths some rule's literal end has: every length of a 200,000-character
            # probe was a slice and a hash each (quadratic: 51 s of validate for one rule)
            size = len(probe)
            buckets += [self._prefix.get(probe[:k], ()) for k in self._prefix_sizes if k <= size]
            buckets += [self._suffix.get(probe[size - k:], ()) for k in self._suffix_sizes
                        if k <= size]
            buckets.append(self._wild[:MAX_WILD])
            for bucket in buckets:
                for index in bucket:
                    if hit is not None and index >= hit[0]:
                        break  # each bucket is in policy order: nothing earlier follows
                    if covers(self._rules[index], rule):
                        hit = (index, False)
                        break
        if hit is None:
            return None
        return self._rules[hit[0]], hit[1]


class DeclaredNames:
    """The declared tool names, indexed so "does any of them match this pattern" is not a
    scan of every name for every rule: an exact pattern is a set lookup, a whole server a
    lookup of its tools, a glob a scan of only the names that begin with its literal prefix's
    server (or of every name when the glob has none)."""

    def __init__(self, names: Iterable[str]) -> None:
        self._names = set(names)
        self._by_server: defaultdict[str, list[str]] = defaultdict(list)
        for name in self._names:
            for server, _ in wire_readings(name):
                self._by_server[server].append(name)

    def any_match(self, pattern: NamePattern) -> bool:
        """Whether ``pattern`` matches any declared name (as ``pattern.matches`` would)."""
        if any(n in self._names for n in pattern.exact):
            return True
        if pattern.server is not None:
            return pattern.server in self._by_server
        if pattern.glob is None:
            return False
        pool: Iterable[str] = self._names
        server = pattern.source[5:].partition("__")[0] if pattern.is_mcp else ""
        if server and "*" not in server and "?" not in server:
            pool = self._by_server.get(server, ())
        return any(pattern.matches(n) for n in pool)
