"""Lint: rules that can never match, rules an earlier rule hides, allows broader than intended."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from toolhost.config.model import Origin
from toolhost.permissions.authoring.lint_content import (
    hidden_conditional_rules,
    hidden_content_rules,
)
from toolhost.permissions.authoring.lint_index import DeclaredNames, EarlierRules
from toolhost.permissions.builtin_names import BUILTIN_TOOLS
from toolhost.permissions.names import NamePattern, split_wire_name
from toolhost.permissions.policy import CompiledPolicy
from toolhost.permissions.rules import CompiledRule

__all__ = ["BUILTIN_TOOLS", "LintFinding", "lint_policy"]

@dataclass(frozen=True)
class LintFinding:
    """One thing worth a look in a policy."""

    code: str  # never-matches | unknown-tool | shadowed | duplicate | broad-allow |
    # never-allows | unread-shell
    message: str
    rule: str
    origin: Origin
    level: str = "warning"

    def __str__(self) -> str:
        return f"{self.origin}: {self.level}: {self.code}: {self.rule}: {self.message}"


def _representatives(names: NamePattern) -> list[str]:
    """Names standing for everything ``names`` matches, for a coverage test."""
    if names.exact:
        return sorted(names.exact)
    if names.server is not None:
        return [f"mcp__{names.server}__*"]
    source = names.source
    if source.startswith("mcp__") and "__" not in source[5:]:
        source += "__*"
    return [source]


def _probes(names: NamePattern) -> list[str]:
    # A representative's '*' stands for any text: the earlier pattern must match it with
    # '*' read as different runs of characters ('mcp__s__?' does not cover 'mcp__s__*').
    return [n.replace("*", fill) for n in _representatives(names) for fill in ("ab", "x_y-z")]


def _names_cover(earlier: CompiledRule, later: CompiledRule) -> bool:
    return all(earlier.names.matches(n) for n in _probes(later.names))


def _covers(earlier: CompiledRule, later: CompiledRule) -> bool:
    return earlier.unconditional and all(earlier.names.matches(n)
                                         for n in _probes(later.names))


def lint_policy(policy: CompiledPolicy, tool_names: Iterable[str] | None = None, *,
                servers: Iterable[str] = (), external_servers: Iterable[str] = ()
                ) -> list[LintFinding]:
    """Findings for ``policy``. ``tool_names``: declared wire names (default: the policy's);
    ``servers``: every declared server; ``external_servers``: servers whose tools are unknown."""
    names = list(policy.tool_names if tool_names is None else tool_names)
    external = set(external_servers)
    declared_servers = set(servers) | external | {
        p[0] for n in names if (p := split_wire_name(n)) is not None}
    out: list[LintFinding] = []
    declared = DeclaredNames(names)
    seen = EarlierRules()
    for rule in policy.rules:
        pat = rule.names

        def add(code: str, message: str, rule: CompiledRule = rule) -> None:
            out.append(LintFinding(code, message, rule.text, rule.origin))

        server = (pat.server or pat.source[5:].partition("__")[0]) if pat.is_mcp else None
        wild_server = server is not None and ("*" in server or "?" in server)
        if pat.is_mcp and not wild_server and server not in external:
            if not declared.any_match(pat):
                missing = ("" if server in declared_servers
                           else f" (no server {server!r} is declared)")
                add("never-matches", "no declared tool matches this rule" + missing)
        elif not pat.is_mcp and pat.glob is None and not pat.exact <= BUILTIN_TOOLS:
            add("unknown-tool", "not a Claude Code built-in tool name nor mcp__<server>__<tool>")
        found = seen.first_hiding(rule, _probes(rule.names), _covers)
        if found is not None and found[1]:
            add("duplicate", f"same rule already at {found[0].origin}")
        elif found is not None:
            earlier = found[0]
            add("shadowed", f"never reached: {earlier.effect} rule {earlier.text!r} at "
                f"{earlier.origin} matches every call it could match first")
        seen.add(rule)
        if rule.effect == "allow" and rule.unconditional:
            if pat.glob is not None and (not pat.is_mcp or wild_server) and (
                    pat.matches("mcp__any__tool") or pat.matches("mcp__any_server__x")):
                add("broad-allow", "allows tools of every server, including ones this config "
                    "does not declare")
            elif pat.glob is not None and not pat.is_mcp:
                hits = sorted(n for n in BUILTIN_TOOLS if pat.matches(n))
                add("broad-allow", "allows every built-in tool it matches: "
                    + (", ".join(hits) or "none today, and any a later CLI adds"))
            elif pat.server is not None and pat.server not in declared_servers:
                # only a whole-server pattern allows "every tool"; mcp__nosuch__tool allows one
                add("broad-allow", f"allows every tool of server {pat.server!r}, which this "
                    "config does not declare")
            elif pat.exact == {"Bash"}:
                add("broad-allow", "allows every shell command; prefer Bash(<command>:*) rules")
        elif (rule.effect == "allow" and pat.exact == {"Bash"} and rule.content is not None
              and str(getattr(rule.content, "spec", "")).lstrip().startswith("*")):
            # the program is the wildcard: `Bash(* install)` allows `sudo rm -rf / install`
            add("broad-allow", "starts with a wildcard, so it allows any program (and any "
                "wrapper: sudo, env, ...) whose command ends as it says; name the program "
                "first, e.g. Bash(npm * install)")
    out += _never_allows(policy.rules)
    out += _unread_allows(policy.rules)
    reported = {id(f.origin) for f in out if f.code in ("shadowed", "duplicate")}
    hidden = list(hidden_content_rules(policy.rules))
    hidden += hidden_conditional_rules(policy.rules, _names_cover)
    for later, earlier in hidden:
        if id(later.origin) not in reported:
            reported.add(id(later.origin))
            out.append(LintFinding(
                "shadowed", f"never reached: {earlier.effect} rule {earlier.text!r} at "
                f"{earlier.origin} matches every call it could match first", later.text,
                later.origin))
    return out


def _bash_guard(rules: Sequence[CompiledRule]) -> CompiledRule | None:
    """The first deny or ask rule that names Bash: what an unread allow could dodge."""
    return next((r for r in rules if r.effect in ("deny", "ask") and r.names.matches("Bash")),
                None)


def _unread_allows(rules: Sequence[CompiledRule]) -> list[LintFinding]:
    """Allow rules naming a tool whose commands no Bash rule reads (PowerShell, REPL) in a policy
    with a deny or ask Bash rule: those rules do not stop what it allows."""
    from toolhost.permissions.unread_tools import UNREAD_TOOLS, names_exactly

    guard = _bash_guard(rules)
    if guard is None:
        return []
    out: list[LintFinding] = []
    for rule in rules:
        # one finding a rule (``allow: REPL`` names its older name Eval too)
        name = next((n for n in UNREAD_TOOLS if rule.effect == "allow"
                     and names_exactly(rule, n)), None)
        if name is not None:
            out.append(LintFinding(
                "unread-shell", f"{name} {UNREAD_TOOLS[name]} no Bash rule reads: "
                f"{guard.effect} rule {guard.text!r} at {guard.origin} (and every other Bash "
                "rule) does not judge what this rule allows", rule.text, rule.origin))
    return out


def _never_allows(rules: Sequence[CompiledRule]) -> list[LintFinding]:
    """Allow rules naming a task runner (``Bash(just:*)``) in a policy with a deny or ask
    Bash rule: the runner's tasks are not read, so it is not provable there."""
    guard = _bash_guard(rules)
    if guard is None:
        return []
    from toolhost.permissions.bash.chosen_code import chosen_code_spec
    from toolhost.permissions.later.tasks import rule_runner

    out: list[LintFinding] = []
    for rule in rules:
        spec = getattr(rule.content, "spec", None)
        if rule.effect != "allow" or not rule.names.matches("Bash") or not isinstance(spec, str):
            continue
        name = rule_runner(spec)
        chosen = chosen_code_spec(spec)
        if chosen is not None:  # Bash(git clone evil::*), Bash(env -C d make)
            out.append(LintFinding(
                "never-allows", f"{chosen}: under {guard.effect} rule {guard.text!r} at "
                f"{guard.origin} such a command is not provable, so this rule allows none",
                rule.text, rule.origin))
        elif name is not None:
            out.append(LintFinding(
                "never-allows", f"{name}'s tasks come from the project's files, which are not "
                f"read: under {guard.effect} rule {guard.text!r} at {guard.origin} a command "
                f"running a task is not provable, so this rule allows none", rule.text,
                rule.origin))
    return out
