"""The compiled policy: every layer's rules in evaluation order, indexed by tool name."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from toolhost.config.model import PermissionsConfig
from toolhost.errors import ConfigError, Problem
from toolhost.permissions.conditions import MISSING, index_key
from toolhost.permissions.decision import Decision
from toolhost.permissions.expr import ExprError
from toolhost.permissions.names import wire_readings
from toolhost.permissions.rules import CompiledRule, RewriteError, compile_rule

if TYPE_CHECKING:
    from toolhost.permissions.content import BashMatcher

# The shell parser and the content matchers (bashpolicy) load with the first rule that has
# content or the first Bash call: most configs have neither (serve and validate start faster).

__all__ = ["EFFECT_ORDER", "CompiledPolicy", "compile_policy"]

EFFECT_ORDER = ("deny", "ask", "allow")
# built-in tools that reach a server's resources and prompts: a rule naming the whole server
# holds them back too (``_server_wide``)
SERVER_READS = frozenset({"ReadMcpResourceTool", "ListMcpResourcesTool", "GetMcpPromptTool"})
_WIRE_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_CACHE_LIMIT = 4096
_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_INDEX_FROM = 8  # bucket equality rules when a tool has at least this many


class _Plan:
    """The rules naming one tool, with rules that test a top-level argument for equality
    bucketed by that value, so hundreds of ``when: {table: x}`` rules cost one dict lookup."""

    def __init__(self, rules: tuple[CompiledRule, ...]) -> None:
        self.rules = rules
        self.unkeyed: list[int] = []
        self.keyed: dict[str, dict[tuple[str, Any], list[int]]] = {}
        # Bash rules bucketed by the literal first word of the commands they match.
        self.by_word: dict[str, list[int]] = {}
        # key -> JSON type tag -> positions: the rules a value of another type must still see
        self.by_tag: dict[str, dict[str, list[int]]] = {}
        words = [r.content.first_word if _is_bash(r.content) else None
                 for r in rules]
        if sum(w is not None for w in words) >= _INDEX_FROM:
            for i, word in enumerate(words):
                if word is None:
                    self.unkeyed.append(i)
                else:
                    self.by_word.setdefault(word, []).append(i)
            return
        indexed = [rule.eq_index for rule in rules]
        if sum(e is not None for e in indexed) < _INDEX_FROM:
            return
        for i, entry in enumerate(indexed):
            if entry is None:
                self.unkeyed.append(i)
            else:
                self.keyed.setdefault(entry[0], {}).setdefault(entry[1], []).append(i)
                self.by_tag.setdefault(entry[0], {}).setdefault(entry[1][0], []).append(i)
        # what ``applicable`` returns when no bucket holds the call's values (built once)
        self._unkeyed_rules = tuple(self.rules[i] for i in self.unkeyed)

    def applicable(self, tool_input: Mapping[str, Any]) -> Iterable[CompiledRule]:
        """The rules that can match ``tool_input``, in evaluation order."""
        if self.by_word:
            return [self.rules[i] for i in self.by_command(tool_input.get("command"))]
        if not self.keyed:
            return self.rules
        positions: list[int] | None = None  # None: the unkeyed rules alone (the usual miss)
        for key, buckets in self.keyed.items():
            value = tool_input.get(key, MISSING)
            if value is MISSING:
                continue  # a plain value never equals an absent argument
            found = index_key(value)
            if found is not None and found in buckets:
                if positions is None:
                    positions = list(self.unkeyed)
                positions += buckets[found]
            # A value of another JSON type than a rule's is not "unequal" but undecidable:
            # deny and ask rules match it (fail closed), so they must be looked at.
            tag = found[0] if found is not None else None
            for other, idx in self.by_tag[key].items():  # a handful of types, not every value
                if other != tag:
                    if positions is None:
                        positions = list(self.unkeyed)
                    positions += idx
        if positions is None:
            return self._unkeyed_rules
        positions.sort()
        return [self.rules[i] for i in positions]


    def by_command(self, command: Any) -> list[int]:
        """Positions of the Bash rules that can match ``command`` (all if it does not parse)."""
        from toolhost.permissions.bashpolicy import command_positions

        return command_positions(command, self.unkeyed, self.by_word, len(self.rules))


class CompiledPolicy:
    """Decides tool calls: deny rules first, then ask, then allow; the first match wins.

    Rules from every layer are combined into one list, so a deny from any layer is seen before
    any allow. No match gives the configured default.
    """

    def __init__(self, rules: Iterable[CompiledRule], *, default: str = "ask",
                 tool_names: Iterable[str] = (), cwd: str | None = None,
                 files: Iterable[str] = (),
                 reading_dirs: Mapping[str, str | None] | None = None) -> None:
        by_effect = {e: [r for r in rules if r.effect == e] for e in EFFECT_ORDER}
        self.rules: tuple[CompiledRule, ...] = tuple(r for e in EFFECT_ORDER for r in by_effect[e])
        self.default = default
        self.cwd = os.path.abspath(cwd or os.getcwd())
        # the files the policy was read from (the config's, extends included): a write to one
        # is never allowed (round 16), as toolhost.yaml and its local and user layers
        self.files = frozenset(os.path.realpath(f).lower() for f in files)
        self.tool_names: tuple[str, ...] = tuple(tool_names)
        self._exact: dict[str, list[int]] = {}
        self._server: dict[str, list[int]] = {}
        self._glob: list[int] = []
        for i, rule in enumerate(self.rules):
            if rule.names.server is not None:
                self._server.setdefault(rule.names.server, []).append(i)
            elif rule.names.glob is not None:
                self._glob.append(i)
            for name in rule.names.exact:
                self._exact.setdefault(name, []).append(i)
        self._cache: dict[str, _Plan] = {}
        # round 19: the tools that read a relative path elsewhere than ``cwd`` (or somewhere
        # unknown), by wire name or ``mcp__server__`` prefix; their rules' path conditions
        # judge absolute values alone (each such rule made once: ``_decided`` keys on its id)
        self._elsewhere = _reading_elsewhere(reading_dirs or {}, self.cwd)
        self._away: dict[int, CompiledRule] = {}
        self._original: dict[int, CompiledRule] = {}  # id of such a rule -> the rule
        # A rule's allow (without a rewrite) and deny are the same immutable Decision for
        # every call it decides: built once (a frozen dataclass of seven fields costs more
        # to build than the rest of an allow's decision), at most one of each per rule.
        self._decided: dict[int, Decision] = {}
        # The first deny rule with a Bash(...) command pattern: a command whose programs cannot
        # be proven could dodge it, so such a command is denied whenever one exists.
        self._bash_deny = next((r for r in self.rules if r.effect == "deny"
                                and _is_bash(r.content)
                                and r.names.matches("Bash")), None)
        # the deny and ask Bash(...) rules a file a later command runs (a git hook, .bashrc)
        # written by Write/Edit/MultiEdit/NotebookEdit meets (round 16: written_later)
        self._met: dict[tuple[int, str], bool] = {}  # (guard, line): whether it meets
        self._later_guards = tuple(r for r in self.rules if r.effect != "allow"
                                   and _is_bash(r.content) and r.names.matches("Bash"))

    def _plan(self, tool_name: str) -> _Plan:
        plan = self._cache.get(tool_name)
        if plan is None:
            idx = list(self._exact.get(tool_name, ()))
            readings = wire_readings(tool_name)
            for server, _ in readings:  # an ambiguous name: allow rules are dropped below
                idx += self._server.get(server, ())
            if not readings and tool_name.startswith("mcp__"):  # mcp__git, mcp__git__: no
                server = tool_name[5:].split("__", 1)[0]  # tool; its server's deny/ask apply
                idx += (i for i in self._server.get(server, ())
                        if self.rules[i].effect != "allow")
            idx += (i for i in self._glob if self.rules[i].names.matches(tool_name))
            if len(readings) > 1 or (not readings and tool_name.startswith("mcp__")):
                idx = [i for i in idx if self.rules[i].effect != "allow"
                       or self.rules[i].names.matches(tool_name, strict=True)]
            chosen = sorted(set(idx))
            if self._reads_elsewhere(tool_name):
                plan = _Plan(tuple(self._read_elsewhere(i) for i in chosen))
            else:
                plan = _Plan(tuple(self.rules[i] for i in chosen))
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[tool_name] = plan
        return plan

    def reads_files(self, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether deciding this call may read files or run git (a Bash command applying a
        patch, unpacking an archive, a git command bringing files): a caller on an event
        loop decides it in a worker thread (``PermissionGate.check``)."""
        command = tool_input.get("command") if tool_name == "Bash" else None
        if not isinstance(command, str):
            return False
        from toolhost.permissions.bashpolicy import reads_files

        return reads_files(command)

    def _reads_elsewhere(self, tool_name: str) -> bool:
        """Whether ``tool_name`` reads a relative path elsewhere than the rules' directory."""
        return any(tool_name == name or (name.endswith("__") and tool_name.startswith(name))
                   for name in self._elsewhere)

    def _read_elsewhere(self, i: int) -> CompiledRule:
        rule = self._away.get(i)
        if rule is None:
            rule = self._away[i] = self.rules[i].read_elsewhere()
            if rule is not self.rules[i]:
                self._original[id(rule)] = self.rules[i]  # (kept alive by ``_away``)
        return rule

    def decide(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        """The decision for one call. No prompting (an "ask" stays "ask"), and no I/O but
        reads that judge what lands in a file a later command runs: an Edit of one (a git
        hook, ``.bashrc``) reads its current text (16 KiB at most, never blocking), a Bash
        command unpacking an archive or applying a patch reads it, and a git command bringing
        files from another commit runs git's plumbing in the repository (``latergit``)."""
        if type(tool_input) is not dict and not isinstance(tool_input, Mapping):
            # the wire refuses such a call; a caller in Python gets a deny, never a traceback
            return Decision("deny", f"The input of {tool_name} is not an object of arguments "
                            f"({type(tool_input).__name__}), so no rule can judge it: denied.")
        if tool_name in SERVER_READS and (self._server or self._glob) and (
                wide := self._server_wide(tool_input)) is not None:
            return self._server_read(wide, tool_name, tool_input)
        if tool_name in _EDIT_TOOLS:
            held = self._written_later(tool_name, tool_input)
            if held is not None:
                return held
        if tool_name in _MOVES_SESSION and self._bash_deny is not None:
            return self._moved(self._decide(tool_name, tool_input))
        return self._decide(tool_name, tool_input)

    def _moved(self, decision: Decision) -> Decision:
        """EnterWorktree switches the session into another folder: later Bash calls run
        there while the rules read scripts, repositories and patches in the start folder, so
        with a Bash deny rule it is denied (round 20)."""
        rule = self._bash_deny
        if decision.behavior == "deny" or rule is None:
            return decision
        return Decision("deny", "Denied: EnterWorktree moves the session into another folder, "
                        "where the rules cannot read what later commands run, so they could "
                        f"dodge rule {rule.text!r} ({rule.origin}) or another.",
                        rule=rule.text, origin=rule.origin)

    def _decide(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        unproven = _unprovable(tool_input, self.cwd, self._brought_meets) \
            if tool_name == "Bash" else None
        denies_done = False
        reached: CompiledRule | None = None  # a Read deny/ask a search may dodge
        for rule in self._plan(tool_name).applicable(tool_input):
            if reached is not None and rule.effect == "allow":
                return _held_search(reached)
            if unproven is not None:
                if rule.effect != "deny" and not denies_done:
                    denies_done = True
                    if self._bash_deny is not None:
                        return self._deny_unproven(unproven)
                if rule.effect == "allow":
                    continue  # an allow rule only lets through what it can prove
            try:
                if not rule.matches(tool_name, tool_input):
                    if reached is None and rule.effect != "allow" and rule.reaches(
                            tool_name, tool_input):
                        reached = rule
                    continue
            except ExprError as exc:
                return Decision("deny", f"Permission rule {rule.text!r} ({rule.origin}) could "
                                f"not be evaluated, so the call is denied: {exc}",
                                rule=rule.text, origin=rule.origin, error=str(exc))
            if rule.effect == "deny" or (rule.effect == "allow" and rule.rewrite is None):
                return self._decision_of(rule)
            if rule.effect == "ask":
                return Decision("ask", rule.message or "", rule=rule.text, origin=rule.origin)
            updated = None
            if rule.rewrite is not None:
                try:
                    updated = rule.rewrite.apply(tool_input)
                except RewriteError as exc:
                    return Decision("deny", f"Permission rule {rule.text!r} ({rule.origin}) "
                                    f"allows this call only with a rewrite that failed: {exc}",
                                    rule=rule.text, origin=rule.origin)
                stricter = self._stricter_rule(tool_name, updated)
                if stricter is not None:  # a rewrite cannot lead around a deny or an ask
                    verb = "denies" if stricter.effect == "deny" else "asks about"
                    return Decision("deny", f"Permission rule {rule.text!r} ({rule.origin}) "
                                    f"rewrites the input into a call that rule "
                                    f"{stricter.text!r} ({stricter.origin}) {verb}, so the call "
                                    "is denied.", rule=stricter.text, origin=stricter.origin)
            return Decision("allow", updated_input=updated, rule=rule.text, origin=rule.origin)
        if reached is not None:
            return _held_search(reached)
        if unproven is not None:
            if self._bash_deny is not None and not denies_done:
                return self._deny_unproven(unproven)
            if self.default != "deny":
                return Decision("ask", f"This command cannot be checked ({unproven}), so no "
                                "rule and no default can allow it; a person must approve it.",
                                answered_by="default")
        elif tool_name == "Bash":
            combined = self._allow_each_command(tool_input)
            if combined is not None:
                return combined
        message = ""
        if self.default == "deny":
            message = f"No permission rule allows {tool_name} (the default is deny)."
        if self._away and self._reads_elsewhere(tool_name):
            message = (message + " " + self._unjudged(tool_name, tool_input)).strip()
        return Decision(self.default, message, answered_by="default")  # type: ignore[arg-type]

    def _unjudged(self, tool_name: str, tool_input: Mapping[str, Any]) -> str:
        """Why an allow rule whose path condition met a relative path of a tool reading
        elsewhere did not allow the call ("" when none would have)."""
        for rule in self._plan(tool_name).rules:
            original = self._original.get(id(rule))
            if rule.effect != "allow" or original is None:
                continue
            try:
                if original.matches(tool_name, tool_input):
                    return (f"Permission rule {rule.text!r} ({rule.origin}) judges a relative "
                            f"path against {self.cwd}, but {tool_name} reads paths elsewhere "
                            "(its own working directory, or another machine): send an "
                            "absolute path.")
            except ExprError:
                continue
        return ""

    def _written_later(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision | None:
        """A Write/Edit of a file a later command runs (a git hook, ``.bashrc``) whose text
        after the call (an Edit's applied to the file's current text: ``edited_text``)
        meets a deny or ask Bash rule, as ``echo TEXT > FILE`` would (``written_later``): that
        rule's decision (an ask only where no rule of the tool denies the call)."""
        from toolhost.permissions.edited_text import texts_after
        from toolhost.permissions.written_later import (
            command_lines,
            later_path,
            new_texts,
            own_file,
        )

        own = own_file(tool_name, tool_input, self.cwd, self.files)
        if own is not None:  # round 16: its next session would obey what the agent wrote
            decided = self._decide(tool_name, tool_input)
            if decided.behavior == "deny":
                return decided
            return Decision("ask", f"{tool_name} writes {own!r}, a file toolhost's permissions "
                            "are read from (the next session would obey what it says), so no "
                            "rule and no default can allow it; a person must approve it.",
                            answered_by="default")
        if not self._later_guards:
            return None
        path = later_path(tool_name, tool_input, self.cwd)
        if path is None:
            return None
        # round 17: an Edit is judged by the whole text the file holds after it (the file's
        # current text read now: an edit removing the `#` of `# rm -rf y` arms that line)
        texts = texts_after(tool_name, tool_input, path, self.cwd,
                            new_texts(tool_name, tool_input))
        hit = self._text_meets(texts)
        if hit is None:
            return None
        what = ("text too long or odd to judge" if not isinstance(command_lines(texts), list)
                else "text that meets this rule")
        why = (f"{tool_name} writes {path!r}, which a later command runs (a git hook or config, "
               f"a shell startup file, an alias file), with {what}")
        if hit.effect == "deny":
            return Decision("deny", hit.message or f"Denied by permission rule {hit.text!r} "
                            f"({hit.origin}): {why}.", rule=hit.text, origin=hit.origin)
        decided = self._decide(tool_name, tool_input)
        if decided.behavior == "deny":
            return decided
        return Decision("ask", hit.message or f"Permission rule {hit.text!r} ({hit.origin}) "
                        f"asks: {why}.", rule=hit.text, origin=hit.origin)

    def _text_meets(self, texts: list[str] | None) -> CompiledRule | None:
        """The first deny or ask Bash rule the text of a run-later file meets (None: none
        does; text that cannot be judged, ``None``, meets every one)."""
        from toolhost.permissions.written_later import UNJUDGED, command_lines

        lines = UNJUDGED if texts is None else command_lines(texts)
        return next((r for k, r in enumerate(self._later_guards) if not isinstance(lines, list)
                     or any(self._meets(k, r, line) for line in dict.fromkeys(lines))), None)

    def _brought_meets(self, texts: list[str | None]) -> bool:
        """Whether a deny or ask Bash rule meets one of the texts a git command brings into a
        run-later file (round 18: latergit; None, a text not readable, meets them all)."""
        return any(self._text_meets(None if t is None else [t]) is not None for t in texts)

    def _meets(self, k: int, rule: CompiledRule, line: str) -> bool:
        """``_meets`` of the ``k``-th later guard, remembered: an Edit of a run-later file
        judges the file's whole text (round 17), and the next edit of it the same lines."""
        key = (k, line)
        met = self._met.get(key)
        if met is None:
            if len(self._met) >= 65536:
                self._met.clear()
            met = self._met[key] = _meets(rule, line)
        return met

    def _server_wide(self, tool_input: Mapping[str, Any]) -> CompiledRule | None:
        """The first deny or ask rule naming a whole server (``mcp__kb``,
        ``mcp__kb__*``, ``mcp__k*``) that a resource read, resource list or prompts/get of
        that server meets: "deny the server" is read as "nothing from it". A call naming no
        server (or not as a string) meets every rule naming a server, and every glob naming
        every server. Only a rule with no content, ``when`` or ``expr`` (those test a tool's
        arguments); one with ``callers`` when the caller is one it names."""
        server = tool_input.get("server")
        wire = _WIRE_UNSAFE.sub("_", server) if isinstance(server, str) else None
        for rule in self.rules:
            if rule.effect == "allow":
                return None
            if rule.content is not None or rule.conditions or rule.expr is not None or (
                    rule.callers is not None  # (a caller rule: when the caller is its own)
                    and not rule.callers.admits_current(strict=False)):
                continue
            if rule.names.server is not None:
                if wire is None or rule.names.server == wire:
                    return rule
            elif rule.names.glob is not None and all(  # every tool of it: any name, any length
                    rule.names.glob.fullmatch(f"mcp__{wire or chr(0)}__{tool}")
                    for tool in ("\x01", "\x01\x02\x03")):
                return rule
        return None

    def _server_read(self, wide: CompiledRule, tool_name: str,
                     tool_input: Mapping[str, Any]) -> Decision:
        """A read of a server a server-wide rule names: denied by a deny, asked by an ask
        (unless a deny rule of ``tool_name`` denies it)."""
        if wide.effect == "ask":
            stricter = self._stricter_rule(tool_name, tool_input)
            if stricter is None or stricter.effect != "deny":
                return Decision("ask", wide.message or "", rule=wide.text, origin=wide.origin)
            wide = stricter
        return Decision("deny", wide.message or f"Denied by permission rule {wide.text!r} "
                        f"({wide.origin}), which names the whole server: its resources and "
                        "prompts too.", rule=wide.text, origin=wide.origin)

    def _decision_of(self, rule: CompiledRule) -> Decision:
        """The decision of a matching deny rule, or of an allow rule without a rewrite."""
        decision = self._decided.get(id(rule))  # the rule is one of self.rules: its id holds
        if decision is None:
            if rule.effect == "deny":
                decision = Decision("deny", rule.message or f"Denied by permission rule "
                                    f"{rule.text!r} ({rule.origin}).",
                                    rule=rule.text, origin=rule.origin)
            else:
                decision = Decision("allow", rule=rule.text, origin=rule.origin)
            self._decided[id(rule)] = decision
        return decision

    def _deny_unproven(self, reason: str) -> Decision:
        rule = self._bash_deny
        assert rule is not None
        return Decision("deny", f"Denied: this command cannot be checked against the Bash deny "
                        f"rules ({reason}), so it could dodge rule {rule.text!r} "
                        f"({rule.origin}) or another; write it with plain program names.",
                        rule=rule.text, origin=rule.origin)

    def _stricter_rule(self, tool_name: str,
                       tool_input: Mapping[str, Any]) -> CompiledRule | None:
        """The first deny or ask rule that matches ``tool_input`` (one that cannot be
        evaluated counts as matching: fail closed)."""
        for rule in self._plan(tool_name).applicable(tool_input):
            if rule.effect == "allow":
                continue
            try:
                if rule.matches(tool_name, tool_input):
                    return rule
            except ExprError:
                return rule
        return None

    def _allow_each_command(self, tool_input: Mapping[str, Any]) -> Decision | None:
        """A command no single allow rule covers, allowed program by program (bashpolicy)."""
        from toolhost.permissions.bashpolicy import allow_each_command

        return allow_each_command(self.rules, self._plan("Bash").applicable, tool_input)

    def rule_for(self, decision: Decision) -> CompiledRule | None:
        """The compiled rule behind ``decision`` (None for the default or a combination)."""
        return next((r for r in self.rules
                     if r.text == decision.rule and r.origin == decision.origin), None)

    def disallowed_tools(self) -> list[str]:
        """Tools to pass to the CLI's ``--disallowedTools``: unconditional denies of whole tools.

        Whole servers are given as ``mcp__<server>``; globs are expanded against the declared
        tool names (a glob matching nothing declared is left to the engine).
        """
        out: list[str] = []
        for rule in self.rules:
            if rule.effect != "deny" or not rule.unconditional:
                continue
            if rule.names.server is not None:
                out.append(f"mcp__{rule.names.server}")
            elif rule.names.glob is not None:
                out.extend(sorted(rule.names.exact))  # the built-in families it names
                out.extend(n for n in self.tool_names if rule.names.matches(n))
            else:
                out.extend(sorted(rule.names.exact))
        # toolhost's own names (a prompts/get) are no tool of the CLI's: decided here only
        return [n for n in dict.fromkeys(out) if n != "GetMcpPromptTool"]


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


def _meets(rule: CompiledRule, line: str) -> bool:
    """Whether a deny or ask Bash rule matches ``line`` as a command (one that cannot be
    evaluated counts as matching: fail closed)."""
    try:
        return rule.matches("Bash", {"command": line})
    except ExprError:
        return True


def _held_search(rule: CompiledRule) -> Decision:
    """A Grep/Glob/LS of a directory that may hold a path a deny or ask rule names: it cannot
    be proven to stay off it, so a person must approve it (no rule or default allows it)."""
    return Decision("ask", f"This search covers a directory that may hold a path rule "
                    f"{rule.text!r} ({rule.origin}) keeps from being read, so a person must "
                    "approve it (search a directory that does not hold it to avoid asking).",
                    rule=rule.text, origin=rule.origin)


def _is_bash(content: object) -> TypeGuard[BashMatcher]:
    """A ``Bash(...)`` matcher? Only a rule with content can hold one, and compiling it
    loaded the content module already."""
    if content is None:
        return False
    from toolhost.permissions.content import BashMatcher as Bash

    return isinstance(content, Bash)


_MOVES_SESSION = frozenset({"EnterWorktree"})  # (ExitWorktree returns to the start folder)


def _unprovable(tool_input: Mapping[str, Any], cwd: str,
                judge: Callable[[list[str | None]], bool]) -> str | None:
    """Why the programs of a Bash call cannot be proven (None: they can)."""
    if not isinstance(tool_input.get("command"), str):
        return None
    from toolhost.permissions.bashpolicy import unprovable

    return unprovable(tool_input["command"], cwd, judge)


def compile_policy(config: PermissionsConfig, *, tool_names: Iterable[str] = (),
                   cwd: str | None = None, files: Iterable[str] = (),
                   reading_dirs: Mapping[str, str | None] | None = None) -> CompiledPolicy:
    """Compile every rule once. Raises ConfigError listing every rule that does not parse.

    ``tool_names`` are the declared wire names (``mcp__server__tool``), used by
    ``disallowed_tools()`` and lint. ``cwd`` is the directory relative path rules
    (``Read(./src/**)``) and relative argument paths are resolved against (default: the
    current directory). ``files`` are the files the config was read from (``HostConfig.files``):
    a Write/Edit of one is never allowed (asked), as of ``toolhost.yaml`` and its layers.
    ``reading_dirs``: where tools read a relative path argument, by wire name or
    ``mcp__server__`` prefix (None: unknown, as for an HTTP tool); for a tool reading
    elsewhere than ``cwd``, a ``path_under``/``path_glob`` condition cannot judge a relative
    (or ``~``) value: every deny or ask meets it, no allow proves it.
    """
    base = os.path.abspath(cwd or os.getcwd())
    compiled: list[CompiledRule] = []
    problems: list[Problem] = []
    for rule in config.rules:
        try:
            compiled.append(compile_rule(rule, cwd=base))
        except ValueError as exc:
            o = rule.origin
            problems.append(Problem(f"permission rule {rule.tool!r}: {exc}", o.file, o.line,
                                    o.column, o.key_path))
    if config.default not in EFFECT_ORDER:
        problems.append(Problem(f"permissions.default must be allow, deny or ask, not "
                                f"{config.default!r}", key_path="permissions.default"))
    if problems:
        raise ConfigError(problems)
    return CompiledPolicy(compiled, default=config.default, tool_names=tool_names, cwd=base,
                          files=files, reading_dirs=reading_dirs)
