"""The compiled policy: every layer's rules in evaluation order, indexed by tool name.

Its parts: ``rule_plan`` (the rules of one tool, indexed), ``later.guard`` (what lands in a
file a later command runs), ``server_wide`` (resource and prompt reads of a server a rule
names whole), ``policy_elsewhere`` (tools reading relative paths elsewhere), ``policy_says``
(the decisions no single rule gives)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from toolhost.compile.defaults import FillRefused, FillUnsure, fill_choices, fill_defaults
from toolhost.config.model import PermissionsConfig
from toolhost.errors import ConfigError, Problem
from toolhost.permissions import policy_says as says
from toolhost.permissions.builtin_names import BUILTIN_TOOLS
from toolhost.permissions.decision import Decision
from toolhost.permissions.expr.core import ExprError
from toolhost.permissions.later.guard import LaterGuards
from toolhost.permissions.names import wire_readings
from toolhost.permissions.policy_elsewhere import Elsewhere, held_in_place
from toolhost.permissions.rule_plan import RulePlan, is_bash
from toolhost.permissions.rules import CompiledRule, RewriteError, compile_rule
from toolhost.permissions.server_wide import SERVER_READS, server_read, server_wide
from toolhost.permissions.shell_tools import (
    SHELL_TOOLS,
    WORKSPACE_BASH,
    WORKSPACE_FETCH,
    judged_as_shell,
    judged_with,
)
from toolhost.permissions.unread_tools import UNREAD_TOOLS, held_unread, hidden_with_bash

# The shell parser and the content matchers (bash.policy) load with the first rule that has
# content or the first Bash call: most configs have neither (serve and validate start faster).

__all__ = ["EFFECT_ORDER", "CompiledPolicy", "compile_policy"]

EFFECT_ORDER = ("deny", "ask", "allow")
_CACHE_LIMIT = 4096
_EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_MOVES_SESSION = frozenset({"EnterWorktree"})  # (ExitWorktree returns to the start folder)
_RUNS_SHELL = frozenset({"Bash", *SHELL_TOOLS})  # a tool whose ``command`` the shell runs


class CompiledPolicy:
    """Decides tool calls: deny rules first, then ask, then allow; the first match wins.

    Rules from every layer are combined into one list, so a deny from any layer is seen before
    any allow. No match gives the configured default.
    """

    def __init__(self, rules: Iterable[CompiledRule], *, default: str = "ask",
                 tool_names: Iterable[str] = (), cwd: str | None = None,
                 files: Iterable[str] = (),
                 reading_dirs: Mapping[str, str | None] | None = None,
                 defaults: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        by_effect = {e: [r for r in rules if r.effect == e] for e in EFFECT_ORDER}
        self.rules: tuple[CompiledRule, ...] = tuple(r for e in EFFECT_ORDER for r in by_effect[e])
        self.default = default
        self.cwd = os.path.abspath(cwd or os.getcwd())
        # the files the policy was read from (the config's, extends included): a write to one
        # is never allowed, as toolhost.yaml and its local and user layers
        self.files = frozenset(os.path.realpath(f).lower() for f in files)
        self.tool_names: tuple[str, ...] = tuple(tool_names)
        self._declared = frozenset(self.tool_names)
        # the top-level defaults a tool fills in for an argument the call leaves out, by wire
        # name: the rules judge the arguments the tool will run with (a deny on `limit >= 10`
        # meets a call that leaves out a `limit` defaulting to 20)
        # (kept in step by the host as an imported server's tool list changes)
        self.defaults: Mapping[str, Mapping[str, Any]] = defaults if defaults is not None else {}
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
        self._cache: dict[str, RulePlan] = {}
        # the tools that read a relative path elsewhere than ``cwd`` (or somewhere
        # unknown), by wire name or ``mcp__server__`` prefix; their rules' path conditions
        # judge absolute values alone (each such rule made once: ``_decided`` keys on its id)
        self._elsewhere = Elsewhere(reading_dirs or {}, self.cwd)
        # A rule's allow (without a rewrite) and deny are the same immutable Decision for
        # every call it decides: built once (a frozen dataclass of seven fields costs more
        # to build than the rest of an allow's decision), at most one of each per rule.
        self._decided: dict[int, Decision] = {}
        # The first deny rule with a Bash(...) command pattern: a command whose programs cannot
        # be proven could dodge it, so such a command is denied whenever one exists.
        self._bash_deny = next((r for r in self.rules if r.effect == "deny"
                                and is_bash(r.content)
                                and r.names.matches("Bash")), None)
        # the deny and ask Bash(...) rules a file a later command runs (a git hook, .bashrc)
        # written by Write/Edit/MultiEdit/NotebookEdit meets (later.edits)
        self._later = LaterGuards(self.rules)

    def _plan(self, tool_name: str) -> RulePlan:
        moved = self._elsewhere.moved(tool_name)  # never cached: the cwd may come back
        plan = None if moved else self._cache.get(tool_name)
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
            if moved or self._elsewhere.covers(tool_name):
                plan = RulePlan(tuple(self._elsewhere.rule(i, self.rules) for i in chosen))
            else:
                plan = RulePlan(tuple(self.rules[i] for i in chosen))
            if moved:
                return plan
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            self._cache[tool_name] = plan
        return plan

    def reads_files(self, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether deciding this call may read files or run git (a Bash command applying a
        patch, unpacking an archive, a git command bringing files): a caller on an event
        loop decides it in a worker thread (``PermissionGate.check``)."""
        if tool_name not in _RUNS_SHELL:  # (a set made once: most calls are no shell's)
            return False
        command = tool_input.get("command")
        if not isinstance(command, str):
            return False
        from toolhost.permissions.bash.policy import reads_files

        return reads_files(command)

    def decide(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        """The decision for one call. No prompting (an "ask" stays "ask"), and no I/O but
        reads that judge what lands in a file a later command runs: an Edit of one (a git
        hook, ``.bashrc``) reads its current text (16 KiB at most, never blocking), a Bash
        command unpacking an archive or applying a patch reads it, and a git command bringing
        files from another commit runs git's plumbing in the repository (``later.git``)."""
        if type(tool_input) is not dict and not isinstance(tool_input, Mapping):
            # the wire refuses such a call; a caller in Python gets a deny, never a traceback
            return Decision("deny", f"The input of {tool_name} is not an object of arguments "
                            f"({type(tool_input).__name__}), so no rule can judge it: denied.")
        filled = self.defaults.get(tool_name)
        # as the tool fills them (inside given arguments too: not a plain dict, see
        # compile.defaults.InsideDefaults); one key-view check per call otherwise
        if filled is not None and (type(filled) is not dict
                                   or not filled.keys() <= tool_input.keys()):
            try:
                tool_input = fill_defaults(filled, tool_input)
            except FillUnsure:  # which branch its upstream fills: judged under each
                try:
                    return says.each_way(tool_name, [
                        self._judged(tool_name, one) for one in fill_choices(filled, tool_input)])
                except FillRefused as exc:
                    return Decision("deny", exc.said(tool_name))
            except FillRefused as exc:  # fail closed: defaults no rule would see
                return Decision("deny", exc.said(tool_name))
        return self._judged(tool_name, tool_input)

    def _judged(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        """The decision for a call whose defaults are filled in."""
        if tool_name in SERVER_READS and (self._server or self._glob) and (
                wide := server_wide(self.rules, tool_input)) is not None:
            return server_read(wide, self._stricter_rule(tool_name, tool_input)
                               if wide.effect == "ask" else None)
        if tool_name in _EDIT_TOOLS:
            held = self._later.written_later(tool_name, tool_input, self.cwd, self.files,
                                             self._decide)
            if held is not None:
                return held
        if tool_name in _MOVES_SESSION and (kept := held_in_place(
                self.rules, self._later.rules, self.cwd)) is not None:
            return says.moved(self._decide(tool_name, tool_input), kept)
        decision = self._decide(tool_name, tool_input)
        if decision.behavior == "allow" and (tool_name in UNREAD_TOOLS or not (
                tool_name in BUILTIN_TOOLS or tool_name in self._declared
                or tool_name.startswith("mcp__"))) and (
                held := self._held_unread(tool_name, decision)) is not None:
            return held
        if tool_name not in SHELL_TOOLS:  # (the usual call: no second look)
            return decision
        ran = decision.updated_input if decision.updated_input is not None else tool_input
        # what the Bash rules (or WebFetch's, for a WebSocket) say of what it runs, with allow
        # for the default, and its own rules: the stricter
        for what, call in judged_with(ran, tool_name):
            other = "Bash" if what == "Bash" else "WebFetch"
            decision = judged_as_shell(tool_name, what, decision,
                                       self._decide(other, call, self._shell_default(what)))
        return decision

    def _shell_default(self, other: str) -> str:
        """The default the ``other`` tool's rules judge a Monitor call's part with (``other``
        a ``shell_tools._WHAT`` key): ``allow`` (its deny and ask rules alone), but under a
        ``deny``/``ask`` default an allow list of that tool bounds it: WebFetch allow rules
        name the hosts a connection may reach, Bash allow rules the commands that may run,
        and anything else meets the default, as a fetch or a Bash call of it would
        (``allow: Monitor`` opened ``wss://evil.com`` and ran ``rm -rf ~`` before)."""
        if self.default != "allow" and any(
                r.effect == "allow"
                for r in self._plan("Bash" if other == "Bash" else "WebFetch").rules):
            return self.default
        return "allow"

    def _held_unread(self, tool_name: str, decision: Decision) -> Decision | None:
        """An allow of a tool whose calls the engine cannot read, or does not know: it needs
        a rule naming it (asked only for those: most calls are neither)."""
        return held_unread(tool_name, decision, self._allowed_by(decision),
                           self._plan("Bash").rules, self.default, self._declared)

    def _allowed_by(self, decision: Decision) -> CompiledRule | None:
        """The allow rule behind an allow (None: the default, or not an allow)."""
        if decision.behavior != "allow" or decision.rule is None:
            return None
        return self.rule_for(decision)

    def _decide(self, tool_name: str, tool_input: Mapping[str, Any],
                default: str | None = None) -> Decision:
        if tool_name != "Bash":
            return self._decide_rules(tool_name, tool_input, default)
        from toolhost.permissions.bash.budget import SPENT_REASON, Spent, one_decision, spent

        with one_decision():  # one budget for every check of the line (bash.budget)
            try:
                decision = self._decide_rules(tool_name, tool_input, default)
                if not spent():  # (a check may have caught Spent and gone on)
                    return decision
            except Spent:
                pass
            except OSError as exc:  # a path a check resolves cannot be read (another
                # process's /proc/PID/root link): not judged
                return self._unchecked(f"a path it names cannot be resolved here "
                                       f"({exc.strerror or exc}: {str(exc.filename)[:80]!r})",
                                       default)
        return self._unchecked(SPENT_REASON, default)

    def _unchecked(self, reason: str, default: str | None = None) -> Decision:
        """A Bash line whose checks could not finish (their budget ran out, a path could not
        be resolved): nothing about it is proven, so the first deny or ask Bash rule meets
        it (no allow rule proves it)."""
        for rule in self._plan("Bash").rules:
            if rule.effect == "deny":
                return says.unproven(rule, reason)
        ask = next((r for r in self._plan("Bash").rules if r.effect == "ask"), None)
        if ask is None and (default or self.default) == "deny":
            return Decision("deny", f"This command cannot be checked ({reason}), so no rule "
                            "can allow it (the default is deny).", answered_by="default")
        said = f"This command cannot be checked ({reason}), so a person must approve it."
        if ask is None:
            return Decision("ask", said, answered_by="default")
        return Decision("ask", said, rule=ask.text, origin=ask.origin)

    def _decide_rules(self, tool_name: str, tool_input: Mapping[str, Any],
                      default: str | None = None) -> Decision:
        """The rules' decision; ``default`` (the policy's unless given) when none decides."""
        default = default or self.default
        unproven = None
        if tool_name == "Bash":
            unproven = self._unprovable(tool_input)
            if unproven == says.FORMS_CUT_REASON:  # (it meets every deny rule: say why)
                return self._unchecked(unproven, default)
        denies_done = False
        reached: CompiledRule | None = None  # a Read deny/ask a search may dodge
        for rule in self._plan(tool_name).applicable(tool_input):
            if reached is not None and rule.effect == "allow":
                return says.held_search(reached)
            if unproven is not None:
                if rule.effect != "deny" and not denies_done:
                    denies_done = True
                    if self._bash_deny is not None:
                        return says.unproven(self._bash_deny, unproven)
                if rule.effect == "allow":
                    continue  # an allow rule only lets through what it can prove
            try:
                if not rule.matches(tool_name, tool_input):
                    if reached is None and rule.effect != "allow" and rule.reaches(
                            tool_name, tool_input):
                        reached = rule
                    continue
            except ExprError as exc:
                return says.unevaluated(rule, exc)
            if rule.effect == "deny" or (rule.effect == "allow" and rule.rewrite is None):
                return self._decision_of(rule)
            if rule.effect == "ask":
                return Decision("ask", rule.message or "", rule=rule.text, origin=rule.origin)
            updated = None
            if rule.rewrite is not None:
                try:
                    updated = rule.rewrite.apply(tool_input)
                except RewriteError as exc:
                    return says.rewrite_failed(rule, exc)
                stricter = self._stricter_rule(tool_name, updated)
                if stricter is not None:  # a rewrite cannot lead around a deny or an ask
                    return says.rewritten_around(rule, stricter)
            return Decision("allow", updated_input=updated, rule=rule.text, origin=rule.origin)
        if reached is not None:
            return says.held_search(reached)
        if unproven is not None:
            if self._bash_deny is not None and not denies_done:
                return says.unproven(self._bash_deny, unproven)
            if default != "deny":
                return Decision("ask", f"This command cannot be checked ({unproven}), so no "
                                "rule and no default can allow it; a person must approve it.",
                                answered_by="default")
        elif tool_name == "Bash":
            combined = self._allow_each_command(tool_input)
            if combined is not None:
                return combined
        message = ""
        if default == "deny":
            message = f"No permission rule allows {tool_name} (the default is deny)."
        if self._elsewhere.away and (self._elsewhere.covers(tool_name)
                                     or self._elsewhere.moved(tool_name)):
            why = self._elsewhere.unjudged(self._plan(tool_name).rules, tool_name, tool_input)
            message = (message + " " + why).strip()
        return Decision(default, message, answered_by="default")  # type: ignore[arg-type]

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

    def _unprovable(self, tool_input: Mapping[str, Any]) -> str | None:
        """Why the programs of a Bash call cannot be proven (None: they can)."""
        if not isinstance(tool_input.get("command"), str):
            return None
        from toolhost.permissions.bash.policy import unprovable

        return unprovable(tool_input["command"], self.cwd, self._later.brought_meets)

    def _allow_each_command(self, tool_input: Mapping[str, Any]) -> Decision | None:
        """A command no single allow rule covers, allowed program by program (bash.policy)."""
        from toolhost.permissions.bash.policy import allow_each_command

        return allow_each_command(self.rules, self._plan("Bash").applicable, tool_input)

    def rule_for(self, decision: Decision) -> CompiledRule | None:
        """The compiled rule behind ``decision`` (None for the default or a combination)."""
        return next((r for r in self.rules
                     if r.text == decision.rule and r.origin == decision.origin), None)

    def disallowed_tools(self) -> list[str]:
        """Tools to pass to the CLI's ``--disallowedTools``: unconditional denies of whole tools.

        Whole servers are given as ``mcp__<server>``; globs are expanded against the declared
        tool names (a glob matching nothing declared is left to the engine). With ``Bash``
        go the tools running what no Bash rule reads (PowerShell, REPL, ...) that its deny
        denies whatever they run: no rule names them to allow or ask.
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
        if "Bash" in out:  # its kin the Bash deny denies whatever they run (unread_tools)
            out += [*hidden_with_bash(self.rules), WORKSPACE_BASH]
        if "WebFetch" in out:  # (as the CLI hides them with its managed Bash and WebFetch)
            out.append(WORKSPACE_FETCH)
        # toolhost's own names (a prompts/get) are no tool of the CLI's: decided here only
        return [n for n in dict.fromkeys(out) if n != "GetMcpPromptTool"]


def compile_policy(config: PermissionsConfig, *, tool_names: Iterable[str] = (),
                   cwd: str | None = None, files: Iterable[str] = (),
                   reading_dirs: Mapping[str, str | None] | None = None,
                   defaults: Mapping[str, Mapping[str, Any]] | None = None) -> CompiledPolicy:
    """Compile every rule once. Raises ConfigError listing every rule that does not parse.

    ``tool_names`` are the declared wire names (``mcp__server__tool``), used by
    ``disallowed_tools()`` and lint. ``cwd`` is the directory relative path rules
    (``Read(./src/**)``) and relative argument paths are resolved against (default: the
    current directory). ``files`` are the files the config was read from (``HostConfig.files``):
    a Write/Edit of one is never allowed (asked), as of ``toolhost.yaml`` and its layers.
    ``reading_dirs``: where tools read a relative path argument, by wire name or
    ``mcp__server__`` prefix (None: unknown, as for an HTTP tool); for a tool reading
    elsewhere than ``cwd``, a ``path_under``/``path_glob`` condition cannot judge a relative
    (or ``~``) value: every deny or ask meets it, no allow proves it. ``defaults``: each
    tool's top-level defaults by wire name (``CompiledTool.defaults``), filled in for the
    arguments a call leaves out before the rules judge it, as the tool fills them to run.
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
                          files=files, reading_dirs=reading_dirs, defaults=defaults)
