"""Every author mistake in a config's rules, found at once, for ``validate``.

Per rule: each part compiled on its own (so a bad ``when`` key does not hide a bad ``expr``),
its target checked against the declared and built-in tools, its ``when``/``expr``/``rewrite``
paths checked against those tools' inputSchemas, empty parts flagged; then the policy's lint
findings that are about the author's intent (duplicates, shadowed rules, broad allows).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from toolhost.config.model import HostConfig, Origin, RuleConfig
from toolhost.excerpt import cut
from toolhost.permissions.authoring.lint import lint_policy
from toolhost.permissions.authoring.rulecheck import Finding, Target, Where, check_rule_paths
from toolhost.permissions.authoring.spec_hints import content_hints
from toolhost.permissions.builtin_inputs import BUILTIN_INPUTS
from toolhost.permissions.conditions import compile_when
from toolhost.permissions.expr.core import compile_expr
from toolhost.permissions.expr.refs import expr_refs
from toolhost.permissions.guards import GUARDS, renamed_away, renames
from toolhost.permissions.names import parse_name_pattern, split_wire_name
from toolhost.permissions.policy import CompiledPolicy
from toolhost.permissions.prompt_rules import GET_PROMPT_TOOL, unmatched_names
from toolhost.permissions.resource_rules import READ_RESOURCE_TOOL, never_matches, regex_spelling
from toolhost.permissions.rules import CompiledRule, compile_rule
from toolhost.permissions.targets import check_target, offline_globs, tool_index

if TYPE_CHECKING:
    from toolhost.compile import CompiledTools
    from toolhost.permissions.names import NamePattern

__all__ = ["review_rules", "tool_index"]

# the others: see check_target
_LINT_CODES = ("duplicate", "shadowed", "broad-allow", "never-allows", "unread-shell")


class _Review:
    def __init__(self, config: HostConfig, tools: CompiledTools | None, cwd: str,
                 unsure: Collection[str] = ()) -> None:
        self.config = config
        self.cwd = cwd
        self.index = tool_index(config, tools, unsure)
        self.renames = renames(config)
        self.schemas: dict[str, Mapping[str, object]] = {}
        if tools is not None:
            self.schemas = {f"mcp__{t.server}__{t.name}": t.input_schema for t in tools}
        self.found: list[Finding] = []

    def where(self, rule: RuleConfig) -> Where:
        def at(suffix: str) -> Origin:
            if not suffix or not rule.origin.key_path:
                return rule.origin
            try:
                found = self.config.origins[rule.origin.key_path + suffix]
            except KeyError:
                return rule.origin
            return dataclasses.replace(found, key_path=cut(found.key_path, 200))
        return at

    def error(self, origin: Origin, rule: RuleConfig, message: str, hint: str = "",
              level: str = "error") -> None:
        self.found.append(Finding(level, origin.problem(
            f"permission rule {rule.tool!r}: {message}", hint=hint)))

    def rule(self, rule: RuleConfig) -> CompiledRule | None:
        at = self.where(rule)
        bare = dataclasses.replace(rule, when=None, expr=None, rewrite=None)
        try:
            head = compile_rule(bare, cwd=self.cwd)
        except ValueError as exc:
            self.error(rule.origin, rule, str(exc), _hint(str(exc), rule.tool))
            head = None
        rule_dir = (os.path.dirname(os.path.abspath(rule.origin.file))
                    if rule.origin.file and not rule.origin.file.startswith("<") else self.cwd)
        broken = head is None
        for key, spec in (rule.when or {}).items():
            try:
                compile_when({key: spec}, cwd=self.cwd, rule_dir=rule_dir)
            except ValueError as exc:
                broken = True
                self.error(at(f".when.{key}"), rule, str(exc))
        if rule.expr is not None:
            try:
                compile_expr(rule.expr)
            except ValueError as exc:
                broken = True
                self.error(at(".expr"), rule, str(exc))
            else:
                self.expr_as_written(rule, at)
        for part, value in (("when", rule.when), ("expr", rule.expr), ("rewrite", rule.rewrite)):
            if value is not None and not value:
                self.error(at(f".{part}"), rule, f"'{part}' is empty, so the rule applies to "
                           "every call of its tools", f"remove '{part}' if that is meant",
                           "warning")
        self.unseen(rule, at)
        compiled = None
        if not broken and bare == rule:
            compiled = head  # nothing more to compile
        elif not broken:
            try:
                compiled = compile_rule(rule, cwd=self.cwd)
            except ValueError as exc:
                if not str(exc).startswith("rewrite is only allowed"):  # the loader said it
                    self.error(at(".rewrite") if "rewrite" in str(exc) else rule.origin,
                               rule, str(exc))
        self.targets(rule, at, rule_dir)
        if head is not None:
            for level, message, hint in content_hints(rule.tool, rule_dir, rule.effect):
                self.error(rule.origin, rule, message, hint, level)
        if rule.when and "uri" in rule.when and head is not None and head.names.matches(
                READ_RESOURCE_TOOL):
            self.resource_uri(rule, at(".when.uri"), rule.when["uri"])
        if rule.when and "name" in rule.when and head is not None and head.names.matches(
                GET_PROMPT_TOOL):
            self.prompt_name(rule, at(".when.name"), rule.when)
        return compiled

    def unseen(self, rule: RuleConfig, at: Where) -> None:
        """Parts written but never in effect: an allow rule's ``message`` (shown only when
        its rewrite denies), a deny/ask ``path_glob`` relative to the rule's file."""
        if rule.message is not None and rule.effect == "allow" and not rule.rewrite:
            self.error(at(".message"), rule, "'message' on an allow rule without 'rewrite' is "
                       "never shown (a message is shown when a call is denied)",
                       "move it to the deny or ask rule it explains", "warning")
        if rule.effect == "allow" and isinstance(rule.when, Mapping) and (
                rule.tool.strip() == "WebFetch"):
            spec = rule.when.get("url")
            glob = spec.get("glob") if isinstance(spec, Mapping) else None
            if isinstance(glob, str) and _wild_host(glob):
                self.error(at(".when.url"), rule, f"the glob {cut(glob, 80)!r} has a wildcard "
                           "in the host, where '*' matches '/', '@', '#' and '?' too, so it "
                           "allows other hosts ('https://*.example.com/*' allows "
                           "'https://evil.net/.example.com/x')", "write "
                           "WebFetch(domain:*.example.com), or use host, which compares "
                           "canonical hosts", "warning")
        if rule.effect == "allow" or not isinstance(rule.when, Mapping):
            return
        for key, spec in rule.when.items():
            ops = spec if isinstance(spec, Mapping) else {}
            for op in ("path_glob", "path_under"):
                glob = ops.get(op)
                if not isinstance(glob, str) or not glob or glob.startswith(("/", "~")):
                    continue
                meant = ("/**/" + glob.removeprefix("./").removeprefix("**/")
                         if op == "path_glob" else "/" + glob.removeprefix("./"))
                self.error(at(f".when.{key}"), rule, f"when.{cut(str(key), 60)}: {op} "
                           f"{cut(glob, 80)!r} is relative, so it is anchored at the rule's "
                           f"file's directory and does not {rule.effect} the same name "
                           "elsewhere", f"to match it anywhere write {cut(meant, 80)!r}"
                           if op == "path_glob" else f"for an absolute directory write "
                           f"{cut(meant, 80)!r}", "warning")
            textual = not isinstance(spec, Mapping) or ops.keys() & {"glob", "regex", "equals"}
            if key == "command" and rule.tool.strip() == "Bash" and textual:
                self.error(at(f".when.{key}"), rule, "when.command tests the command line "
                           "as written, so it does not see through 'sudo rm', 'a; rm', "
                           "'$(rm)' as a Bash(...) rule does", "write the program as a rule: "
                           "Bash(rm:*)", "warning")
            if textual and (why := _as_written(rule.tool.strip(), str(key))) is not None:
                self.error(at(f".when.{key}"), rule, why[0], why[1], "warning")

    def expr_as_written(self, rule: RuleConfig, at: Where) -> None:
        """A deny/ask ``expr`` reading a built-in tool's command, path or URL reads the text
        as written, as a ``when`` ``regex`` does: ``'rm' in args.command`` does
        not see ``r''m x``, ``\\rm x``."""
        if rule.effect == "allow" or not isinstance(rule.expr, str):
            return
        tool = rule.tool.strip()
        keys = sorted({str(p[0]) for p in expr_refs(rule.expr)[1] if p})
        if tool == "Bash" and "command" in keys:
            self.error(at(".expr"), rule, "expr reads args.command as written, so it does not "
                       "see through 'sudo rm', 'a; rm', \"r''m\", '\\rm' as a Bash(...) rule "
                       "does", "write the program as a rule: Bash(rm:*)", "warning")
        for key in keys:
            if (why := _as_written(tool, key)) is not None:
                self.error(at(".expr"), rule, why[0].replace(f"when.{key} tests",
                                                             f"expr reads args.{key}: it tests"),
                           why[1], "warning")

    def prompt_name(self, rule: RuleConfig, origin: Origin, when: Mapping[str, object]) -> None:
        """A ``GetMcpPromptTool`` rule on a prompt name no declared prompt has."""
        servers = self.config.servers
        if any(s.upstream is not None or s.external is not None for s in servers.values()):
            return  # an imported server's prompts are not known here
        declared = [(name, prompt) for name, s in servers.items() for prompt in s.prompts]
        for pattern in unmatched_names(when, declared):
            self.error(origin, rule, f"when.name: {cut(pattern, 200)!r} can match no prompt "
                       "this config declares", "a rule names a prompt as its server declares it "
                       "(review, not kb__review) and its server in when.server", "warning")

    def resource_uri(self, rule: RuleConfig, origin: Origin, spec: object) -> None:
        """A ``ReadMcpResourceTool`` rule on a URI no declared resource has, or whose regex
        spells the URI in a way reads never see it."""
        why = regex_spelling(spec)
        if why is not None:
            self.error(origin, rule, f"when.uri: the regex can never match: {why}",
                       "write the URI as resources/list shows it, or use glob", "warning")
        servers = self.config.servers.values()
        if any(s.upstream is not None or s.external is not None for s in servers):
            return  # an imported server's resources are not known here
        declared = [(res.kind, res.uri) for s in servers for res in s.resources.values()
                    if isinstance(getattr(res, "uri", None), str)]
        for pattern in never_matches(spec, declared):
            self.error(origin, rule, f"when.uri: {cut(pattern, 200)!r} can match no resource "
                       "this config declares", "compare with the URIs resources/list and "
                       "resources/templates/list show", "warning")

    def fixed(self, rule: RuleConfig, at: Where, pattern: NamePattern) -> None:
        """A ``when`` on an argument the config fixes for an imported tool: the model never
        sends it, so the condition never holds (a deny would guard nothing)."""
        if not isinstance(rule.when, Mapping) or not pattern.is_mcp or not any(
                c.upstream is not None for c in self.config.servers.values()):
            return  # (no imported server: the gateway's modules stay unloaded)
        from toolhost.gateway.reshape import fixed_named

        for server, config in self.config.servers.items():
            if config.upstream is None or config.external is not None:
                continue
            for key, wire, upstream, value in fixed_named(config.upstream, server,
                                                          pattern.matches, rule.when):
                self.error(at(f".when.{key}"), rule, f"when.{cut(key, 60)}: argument "
                           f"{key!r} of {wire} is fixed by servers.{server}.tools.{upstream}"
                           f".fixed ({value}): the model never sends it, so the condition "
                           "never holds" + (" for that tool" if pattern.glob else ""),
                           "the config already sends that value; remove the condition, or "
                           "the argument from fixed:", "error" if rule.effect in GUARDS
                           and not pattern.glob else "warning")

    def elsewhere(self, rule: RuleConfig, at: Where, pattern: NamePattern) -> None:
        """A ``path_under``/``path_glob`` condition on a tool of an imported server that reads
        a relative path elsewhere than the rules judge it: an ``mcp.cwd`` of its own that is
        not the rules' directory, or an HTTP upstream (its own machine's paths)."""
        if not isinstance(rule.when, Mapping) or not pattern.is_mcp:
            return
        keys = [str(k) for k, spec in rule.when.items() if isinstance(spec, Mapping)
                and not {"path_under", "path_glob"}.isdisjoint(spec)]
        if not keys:
            return
        for server, config in self.config.servers.items():
            if config.upstream is None or config.external is not None or not (
                    pattern.server == server or pattern.source.startswith(f"mcp__{server}__")
                    or any(e.startswith(f"mcp__{server}__") for e in pattern.exact)):
                continue
            from toolhost.gateway.start import reads_paths_elsewhere  # (configs with one)

            said = reads_paths_elsewhere(config.upstream, server, self.cwd)
            if said is not None:
                self.error(at(f".when.{keys[0]}"), rule, f"when.{cut(keys[0], 60)}: "
                           f"{said[0]}", said[1], "warning")
                return
        self.own_elsewhere(rule, at, pattern, keys[0])

    def own_elsewhere(self, rule: RuleConfig, at: Where, pattern: NamePattern,
                      key: str) -> None:
        """The same for toolhost's own tools: a command tool with a ``cwd:``
        elsewhere, an HTTP tool (another machine), a plugin's kind (unknown). (A tool running
        where toolhost does is not said: where ``run``/``serve`` starts is not known here.)"""
        from toolhost.permissions.reading_dirs import reading_dirs

        for wire, where in reading_dirs(self.config, here=self.cwd).items():
            if wire.endswith("__") or not pattern.matches(wire) or (
                    where is not None
                    and os.path.realpath(where) == os.path.realpath(self.cwd)):
                continue
            why = (f"in {where} (its cwd)" if where is not None
                   else "somewhere unknown (on another machine, for an HTTP tool)")
            self.error(at(f".when.{key}"), rule, f"when.{cut(key, 60)}: tool {wire} reads a "
                       f"relative path {why}, not in {self.cwd} where the rules judge it, so "
                       "this condition judges only an absolute path of it (a relative one "
                       "meets every deny and ask, and no allow proves it)",
                       "send it absolute paths, or give the tool the rules' directory as its "
                       "cwd", "warning")
            return

    def upstream_args(self, rule: RuleConfig, at: Where, names: list[str],
                      rule_dir: str) -> None:
        """``validate --connect``: a ``when`` on an argument the imported tools it names do
        not declare, or a deny/ask condition that holds for an argument's default, which a
        call leaving it out is sent unjudged (``toolhost.permissions.upstream_args``)."""
        imported = {n: self.schemas[n] for n in names if n in self.schemas and self._imported(n)}
        if not isinstance(rule.when, Mapping) or not imported:
            return
        from toolhost.permissions.upstream_args import review_when

        others = any(n.startswith("mcp__") and n not in imported for n in names)
        for raw, message, hint in review_when(rule, imported, others=others, cwd=self.cwd,
                                              rule_dir=rule_dir, renames=self._upstream_names):
            self.error(at(f".when.{raw}"), rule, message, hint, "warning")

    def _imported(self, wire: str) -> bool:
        """Whether ``wire`` is a tool of an imported (``mcp:``) server."""
        split = split_wire_name(wire)
        server = self.config.servers.get(split[0]) if split else None
        return server is not None and server.upstream is not None and server.external is None

    def _upstream_names(self, wire: str) -> tuple[str, str]:
        """The server and the upstream's own name of imported tool ``wire``."""
        server, shown = split_wire_name(wire) or ("", wire)
        spec = self.config.servers[server].upstream
        return server, next((n for n, r in spec.reshape.items() if r.name == shown), shown)

    def targets(self, rule: RuleConfig, at: Where, rule_dir: str) -> None:
        name = rule.tool.strip().split("(", 1)[0]
        try:
            pattern = parse_name_pattern(name)
        except ValueError:
            return  # compile_rule said why
        problem = check_target(pattern, self.index)
        if problem is not None:
            self.error(rule.origin, rule, problem.message, problem.hint, problem.level)
            return
        unlisted = offline_globs(pattern, self.index)
        if unlisted:  # said, not judged: validate --connect lists them and checks it
            servers = ", ".join(repr(s) for s in unlisted)
            self.found.append(Finding("warning", rule.origin.problem(
                f"note: permission rule {rule.tool!r} names tools of imported server(s) "
                f"{servers} by a glob; offline, validate cannot list their tools, so whether "
                "it matches one is not checked", hint="run `toolhost validate --connect` "
                "to check it against the upstream's list")))
        away = renamed_away(pattern, self.renames) if rule.effect in GUARDS else None
        if away is not None:
            self.error(rule.origin, rule, *away)
        self.fixed(rule, at, pattern)
        self.elsewhere(rule, at, pattern)
        names = self.index.matching(pattern)
        self.upstream_args(rule, at, names, rule_dir)
        targets: list[Target] = []
        for tool in names:
            if tool in BUILTIN_INPUTS:
                targets.append(Target(tool, BUILTIN_INPUTS[tool], strict=False))
            elif tool in self.schemas:
                targets.append(Target(tool, self.schemas[tool]))
            elif tool.startswith("mcp__"):
                targets = []  # a tool whose schema is unknown (did not compile): no proof
                break
        external = pattern.is_mcp and any(pattern.matches(f"mcp__{s}__x")
                                           for s in self.index.external)
        if external or (pattern.is_mcp and not names):
            targets = []
        self.found += check_rule_paths(rule, at, targets, cwd=self.cwd, rule_dir=rule_dir)
        if rule.expr and targets:
            self.expr_fails(rule, at, targets)

    def expr_fails(self, rule: RuleConfig, at: Where, targets: list[Target]) -> None:
        """An ``expr`` that fails on every argument set tried: the engine denies every call
        reaching the rule (``expr_probe``)."""
        from toolhost.permissions.expr.probe import always_fails

        try:
            compiled = compile_expr(str(rule.expr))
        except ValueError:
            return  # said above
        error = always_fails(compiled, [(t.name, t.schema) for t in targets])
        if error is not None:
            self.error(at(".expr"), rule, f"expr fails on every value of the arguments tried "
                       f"({cut(error, 160)}), and a rule whose expr fails denies the call, so "
                       f"this {rule.effect} rule denies every call that reaches it",
                       "fix the expression (a filter such as |int or |string converts a value)")


_PATH_KEYS = ("file_path", "path", "notebook_path")


def _as_written(tool: str, key: str) -> tuple[str, str] | None:
    """(message, hint) for a deny/ask ``when`` testing a built-in tool's path or URL with
    ``glob``, ``regex``, ``equals`` or a plain value: the text as written, which other
    spellings of the same file or host escape."""
    if key in _PATH_KEYS and not tool.startswith("mcp__") and _path_tool(tool):
        return (f"when.{key} tests the path as written, so other spellings of the same file "
                "('/etc//passwd', '/tmp/../etc/passwd', a relative path, a symlink) escape "
                "it", f"write a path rule, {tool}(//etc/passwd), or use path_under/path_glob, "
                "which compare normalised paths")
    if tool == "WebFetch" and key == "url":
        return ("when.url tests the URL as written, so other spellings of the same host "
                "('HTTPS://EXAMPLE.COM', 'https://ex%61mple.com', 'https://user@example.com') "
                "escape it", "write WebFetch(domain:example.com), or use host, which compares "
                "canonical hosts")
    return None


def _wild_host(glob: str) -> bool:
    """Whether a URL glob has a wildcard before its host ends: ``*`` there may
    cross into the path, the userinfo or the fragment and name another host."""
    rest = glob.split("://", 1)[1] if "://" in glob else glob
    host, slash, _ = rest.partition("/")
    return any(c in host for c in "*?[") or (not slash and "*" in rest)


def _path_tool(tool: str) -> bool:
    # imported here: the demo config's rules name only MCP tools, and validate's start-up
    # stays light (tests/test_startup_imports.py)
    from toolhost.permissions.paths import PATH_TOOLS

    return tool in PATH_TOOLS


def _hint(message: str, tool: str) -> str:
    if "is not a host name" in message and "://" in tool:
        host = tool.split("://", 1)[1].split("/", 1)[0].split(")", 1)[0]
        return f"write the host alone: WebFetch(domain:{host})"
    return ""


def review_rules(config: HostConfig, tools: CompiledTools | None = None, *,
                 cwd: str | None = None, unsure: Collection[str] = ()) -> list[Finding]:
    """Errors and warnings about ``config``'s rules, each with the rule's file:line.

    ``tools`` (the compiled tools, possibly only those that compiled) gives the inputSchemas
    rules are checked against; without it only built-in tools' arguments are checked.
    ``unsure``: servers the loader refused part of; any tool name of theirs is accepted.
    """
    base = os.path.abspath(cwd or config.run.cwd or os.getcwd())
    review = _Review(config, tools, base, unsure)
    compiled = [c for rule in config.permissions.rules if (c := review.rule(rule)) is not None]
    policy = CompiledPolicy(compiled, default=config.permissions.default,
                            tool_names=review.index.wire_names)
    external = sorted(review.index.external)
    for finding in lint_policy(policy, servers=list(config.servers), external_servers=external):
        if finding.code in _LINT_CODES:
            review.found.append(Finding("warning", finding.origin.problem(
                f"permission rule {finding.rule!r}: {finding.code}: {finding.message}")))
    return review.found
