"""``toolhost permissions check|list|lint``: ask the policy, show it, review it."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Any

from toolhost.commands._argtypes import Once, non_empty

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.permissions.authoring.casefile import Case
    from toolhost.permissions.authoring.casetest import Outcome
    from toolhost.permissions.callers.identity import Caller
    from toolhost.permissions.policy import CompiledPolicy

HELP = "check a tool call against the permission rules, list them, lint them, test them"
DESCRIPTION = """\
Work with a config's permission rules (every layer: the file, its extends, plugins, the user
and local files), exactly as a running host applies them. See docs/permissions.md.

  check CONFIG TOOL [--input JSON]   the decision for one call and the rule (file:line) behind it
  list CONFIG                        every rule in evaluation order (deny, ask, allow)
  lint CONFIG                        rules that never match, shadowed rules, too-broad allows
  test CASES...                      run policy test files: (tool, input, expected decision)

Examples:
  toolhost permissions check team.yaml mcp__git__log --input '{"count": 5}'
  toolhost permissions check team.yaml Bash --input '{"command": "npm test && rm -rf /"}' --json
  toolhost permissions check team.yaml Read --input @call.json
  toolhost permissions list team.yaml
  toolhost permissions lint team.yaml
  toolhost permissions test policy-tests.yaml -v

Rules with callers: (docs/permissions.md) are decided for the caller given with --caller JSON
(a token's claims) or --caller-sub/--caller-group/--caller-scope; without one, check decides
as on stdio (no caller) and says when the decision depends on the caller.

Exit status: check exits 0 whatever the decision (read it from the output, or pass
--exit-code for 0 allow / 10 deny / 11 ask / 12 depends on the caller); lint exits 1 when it
has findings; a config that does not load exits 1; test exits 1 when a case fails or a case
file is malformed; bad arguments exit 2.
"""

TEST_DESCRIPTION = """\
Run policy test files, the way `opa test` runs policy tests: each file names a config and
lists cases (a tool, its input, the decision expected, optionally the rule expected to make
it). Every case is decided exactly as a running host would, without asking anyone and
without running a tool. Keep the file beside the config and run it in CI.

A case file (YAML or TOML):

  config: toolhost.yaml              # relative to this file (or pass --config)
  cases:
    - name: tests may run
      tool: Bash
      input: {command: npm test}
      expect: allow                  # allow | deny | ask
      rule: Bash(npm test:*)         # optional: rule text, FILE:LINE, or default
    - tool: mcp__db__query
      input: {table: orders, limit: 500}
      expect: allow
      updated_input: {table: orders, limit: 100}   # optional: the rewritten input
    - tool: mcp__db__migrate
      caller: {sub: ana, groups: [platform], scope: "tools:call"}  # optional: token claims
      expect: allow

A case without caller: is decided as on stdio (no caller); when rules with callers: would take
part for some caller, a note says so (the decision depends on the caller).

Output: one line per failed case with the case's file:line, what was expected, what happened
and which rule decided; -v lists passes too; then a summary line.
Exit status: 0 when every case passes; 1 when one fails, a case file is malformed or the
config does not load.

Examples:
  toolhost permissions test policy-tests.yaml
  toolhost permissions test tests/policy/*.yaml -v
  toolhost permissions test cases.toml --config staging.yaml --no-layers
"""

EXIT_BY_DECISION = {"allow": 0, "deny": 10, "ask": 11}
EXIT_DEPENDS_ON_CALLER = 12


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="perm_command", metavar="SUBCOMMAND", required=True)
    # the command's own formatter (the CLI's: raw descriptions, and a terminal width found
    # without argparse's import of shutil)
    formatter = parser.formatter_class
    check = sub.add_parser(
        "check", help="the decision for one tool call", formatter_class=formatter,
        description="Print the decision (allow, deny or ask) for one call and the rule, with "
        "its file:line,\nthat made it. Nobody is asked; the tool does not run.\n\n"
        "Examples:\n"
        "  toolhost permissions check team.yaml mcp__git__log --input '{\"count\": 5}'\n"
        "  toolhost permissions check team.yaml Bash --input '{\"command\": \"rm -rf /\"}'\n"
        "  toolhost permissions check team.yaml Read --input '{\"file_path\": \"src/a.py\"}' "
        "--json\n"
        "  toolhost permissions check team.yaml mcp__db__drop --exit-code || echo not allowed\n"
        "  toolhost permissions check team.yaml mcp__db__migrate --caller-group platform\n"
        "  toolhost permissions check team.yaml mcp__db__drop --caller "
        "'{\"sub\": \"ana\", \"scope\": \"tools:read-only\"}'")
    check.add_argument("config", metavar="CONFIG")
    check.add_argument("tool", metavar="TOOL_NAME", type=non_empty,
                       help="the name the CLI asks about: mcp__SERVER__TOOL for the config's "
                       "tools (not SERVER.TOOL), Bash, Read, Edit, WebFetch, ... for built-ins")
    check.add_argument("--input", default="{}", metavar="JSON", action=Once,
                       help="the call's arguments as a JSON object; @FILE reads a file, "
                       "- reads stdin (default: {}); at most 16 MiB, nested at most 256 deep, "
                       "no NaN or Infinity")
    check.add_argument("--json", action="store_true", help="print a JSON object")
    check.add_argument("--cwd", action=Once,
                       help="working directory relative paths resolve against "
                       "(default: run.cwd of the config, else the current directory)")
    check.add_argument("--exit-code", action="store_true",
                       help="exit 0 for allow, 10 for deny, 11 for ask, 12 when the decision "
                       "depends on a caller none was given for")
    who = check.add_argument_group(
        "the caller (rules with callers:; without one the call is decided as on stdio)")
    who.add_argument("--caller", metavar="JSON", action=Once,
                     help="the caller as an access token's claims (sub, groups, scope/scp), "
                     "read as serve reads a token; @FILE reads a file")
    who.add_argument("--caller-sub", metavar="SUB", action=Once, help="the caller's subject")
    who.add_argument("--caller-group", action="append", default=[], metavar="GROUP",
                     help="a group of the caller (repeat for more)")
    who.add_argument("--caller-scope", action="append", default=[], metavar="SCOPE",
                     help="a scope of the caller (repeat for more)")
    who.add_argument("--auth-groups-claim", default="groups", metavar="CLAIM", action=Once,
                     help="the claim of --caller holding the groups, as for serve "
                     "(default: groups; a.b is a nested claim)")
    for name, text, more in (
            ("list", "every rule in evaluation order with its origin",
             "Deny rules first, then ask, then allow, each with the file:line that wrote it "
             "(the\nconfig, its extends, a plugin, the user or local layer).\n\nExamples:\n"
             "  toolhost permissions list team.yaml\n"
             "  toolhost permissions list team.yaml --no-layers    # the team's rules alone\n"
             "  toolhost permissions list team.yaml --json | jq '.rules[].rule'"),
            ("lint", "rules that never match, are shadowed, or allow too much",
             "Exit 1 when there are findings (a CI gate).\n\nExamples:\n"
             "  toolhost permissions lint team.yaml\n"
             "  toolhost permissions lint team.yaml --json")):
        cmd = sub.add_parser(name, help=text, formatter_class=formatter,
                             description=text[0].upper() + text[1:] + ".\n\n" + more)
        cmd.add_argument("config", metavar="CONFIG")
        cmd.add_argument("--json", action="store_true", help="print JSON")
    test = sub.add_parser("test", help="run policy test files (tool, input, expected decision)",
                          formatter_class=formatter,
                          description=TEST_DESCRIPTION)
    test.add_argument("cases", nargs="+", metavar="CASES", help="case files (YAML or TOML)")
    test.add_argument("--config", metavar="CONFIG",
                      help="test this config instead of the one each case file names")
    test.add_argument("-v", "--verbose", action="store_true", help="list passing cases too")
    for cmd in sub.choices.values():
        cmd.add_argument("--no-layers", action="store_true",
                         help="ignore the user and local layers")


def _load(args: argparse.Namespace, cwd: str | None = None) -> tuple[HostConfig, CompiledPolicy]:
    from toolhost.config import load_config
    from toolhost.permissions.gate import declared_defaults, declared_tool_names
    from toolhost.permissions.policy import compile_policy
    from toolhost.permissions.reading_dirs import reading_dirs

    config = load_config(args.config, layers=not args.no_layers)
    policy = compile_policy(config.permissions, tool_names=declared_tool_names(config),
                            defaults=declared_defaults(config),
                            cwd=cwd or config.run.cwd, files=config.files,
                            reading_dirs=reading_dirs(config, rules_dir=cwd or config.run.cwd))
    return config, policy


def _read_input(text: str) -> dict[str, Any] | str:
    """``--input``'s object, or what is wrong with it (see toolhost.commands._jsonarg)."""
    from toolhost.commands._jsonarg import JsonArgumentError, json_argument

    try:
        value = json_argument("--input", text, stdin=True)
    except JsonArgumentError as exc:
        return str(exc)
    if not isinstance(value, dict):
        from toolhost.permissions.conditions import json_type

        return f"--input must be a JSON object, not {json_type(value)}: {text[:60]!r}"
    return value


def _unknown_tool_note(config: HostConfig, name: str) -> str:
    """Rules match the names the CLI asks about (mcp__server__tool, Bash, ...): say so when
    ``name`` is not one of them, since the decision for a misspelt name means nothing."""
    from toolhost.permissions.authoring.lint import BUILTIN_TOOLS
    from toolhost.permissions.gate import declared_tool_names
    from toolhost.typos import close_matches

    declared = declared_tool_names(config)
    external = tuple(f"mcp__{n}__" for n, s in config.servers.items() if s.external is not None)
    if name in declared or name in BUILTIN_TOOLS or name.startswith(external):
        return ""
    imported = next((n for n, s in config.servers.items() if s.upstream is not None
                     and name.startswith(f"mcp__{n}__")), None)
    if imported is not None:  # its tools are known once its upstream lists them
        from toolhost.excerpt import cut as cut_name

        return (f"{cut_name(name, 200)} would be a tool of imported server '{imported}': "
                "decided without starting it, so the argument defaults its upstream declares "
                "are not filled in (the config's own `defaults:` are); where a rule depends "
                "on one, give the argument in --input")
    wire = "mcp__" + name.replace(".", "__", 1) if "." in name else ""
    close = [wire] if wire in declared else close_matches(
        name, [*declared, *BUILTIN_TOOLS], n=1)
    from toolhost.excerpt import cut

    # cut: a case file's 2,000,000-character tool name made a line that long
    return (f"{cut(name, 200)} is not a tool of this config nor a built-in tool"
            + (f"; did you mean {close[0]}?" if close else ""))


def _read_caller(args: argparse.Namespace) -> Caller | str | None:
    """The caller the options give, None without one, or what is wrong with them."""
    from toolhost.commands._jsonarg import JsonArgumentError, json_argument
    from toolhost.permissions.callers.check import caller_from_options

    claims = None
    if args.caller is not None:
        try:
            claims = json_argument("--caller", args.caller, stdin=True)
        except JsonArgumentError as exc:
            return str(exc)
        if not isinstance(claims, dict):
            return f"--caller must be a JSON object of claims, not {type(claims).__name__}"
    try:
        return caller_from_options(claims, args.caller_sub, args.caller_group,
                                   args.caller_scope, args.auth_groups_claim)
    except ValueError as exc:
        return f"--caller: {exc}"


def _check(args: argparse.Namespace) -> int:
    from toolhost.errors import shown  # a rule's text is the config's: shown, never obeyed
    from toolhost.permissions.callers.check import caller_rules, describe_caller
    from toolhost.permissions.callers.identity import as_caller
    from toolhost.permissions.resource_rules import read_forms

    tool_input = _read_input(args.input)
    caller = _read_caller(args)
    for problem in (tool_input, caller):
        if isinstance(problem, str):
            print(f"toolhost permissions check: {problem}", file=sys.stderr)
            return 2
    assert not isinstance(tool_input, str) and not isinstance(caller, str)
    config, policy = _load(args, args.cwd)
    from toolhost.permissions.authoring.case_inputs import builtin_input_note

    for note in (_unknown_tool_note(config, args.tool), builtin_input_note(args.tool, tool_input)):
        if note:
            print(f"toolhost permissions check: note: {note}", file=sys.stderr)
    cwd = args.cwd or config.run.cwd
    if cwd and not os.path.isdir(cwd):
        print(f"toolhost permissions check: note: the working directory {cwd!r} does not "
              "exist; relative paths are decided as if it did", file=sys.stderr)
    with as_caller(caller):
        for form in read_forms(args.tool, tool_input):  # (a read: each form, as a host does)
            decision = policy.decide(args.tool, form)
            if decision.behavior != "allow":
                break
    if form.get("uri") != tool_input.get("uri"):
        print(f"toolhost permissions check: note: decided on {shown(form['uri'][:200])}, a "
              f"form of the URI a running host decides the read on", file=sys.stderr)
        tool_input = dict(form)
    rule = policy.rule_for(decision)
    depends = [] if caller is not None else caller_rules(policy, args.tool, tool_input)
    out: dict[str, Any] = {
        "decision": decision.behavior, "tool": args.tool, "rule": decision.rule,
        "origin": str(decision.origin) if decision.origin else None,
        "layer": rule.layer if rule else None, "answered_by": decision.answered_by,
        "message": decision.message or None,
        "caller": caller.to_audit() if caller is not None else None,
        "depends_on_caller": bool(depends),
    }
    if depends:
        out["caller_rules"] = [{"effect": r.effect, "rule": config.redact(r.text),
                                "origin": str(r.origin)}
                               for r in depends]
    if decision.updated_input is not None:
        out["updatedInput"] = dict(decision.updated_input)
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        if caller is not None:
            print(describe_caller(caller))
        if depends:
            print(f"depends on the caller: {decision.behavior} without one (stdio, toolhost "
                  f"run); {len(depends):,} rule(s) restricted to callers apply to this call for "
                  "some callers:")
            for r in depends:
                print(f"  {r.effect:5}  {shown(config.redact(r.text))}  ({shown(str(r.origin))})")
            print("  decide for one with --caller-sub/--caller-group/--caller-scope or "
                  "--caller JSON; without a caller:")
        if decision.rule is None:
            print(f"{decision.behavior}: no rule matches {args.tool}; "
                  f"the default is {policy.default} ({_where(config, 'default')})")
        else:
            print(f"{decision.behavior}: {shown(str(decision.rule))}  "
                  f"({shown(str(decision.origin))}" + (f", layer {rule.layer})" if rule else ")"))
        if decision.message:
            print(f"message: {shown(config.redact(decision.message))}")
        if decision.updated_input is not None:
            print("updatedInput: " + json.dumps(out["updatedInput"], ensure_ascii=False))
    if not args.exit_code:
        return 0
    return EXIT_DEPENDS_ON_CALLER if depends else EXIT_BY_DECISION[decision.behavior]


def _set_at(config: HostConfig, key: str) -> str | None:
    """Where the policy setting ``key`` in effect was written (the last layer setting it)."""
    origin = config.origins.get(f"permissions.{key}")
    return None if origin is None else str(origin)


def _where(config: HostConfig, key: str) -> str:
    from toolhost.errors import shown

    at = _set_at(config, key)
    return "not set in any layer" if at is None else shown(at)


def _list(args: argparse.Namespace) -> int:
    config, policy = _load(args)
    perms = config.permissions
    rows = [{"effect": r.effect, "rule": r.text, "origin": str(r.origin), "layer": r.layer,
             **({"message": r.message} if r.message else {})} for r in policy.rules]
    if args.json:
        print(json.dumps({"default": perms.default, "ask_mode": perms.ask_mode,
                          "default_origin": _set_at(config, "default"),
                          "ask_mode_origin": _set_at(config, "ask_mode"),
                          "audit_log": perms.audit_log, "rules": rows,
                          "disallowedTools": policy.disallowed_tools()}, indent=2))
        return 0
    from toolhost.errors import shown  # a rule's text is the config's: shown, never obeyed

    print(f"default: {perms.default} ({_where(config, 'default')})   ask_mode: "
          f"{perms.ask_mode} ({_where(config, 'ask_mode')})   "
          f"audit_log: {shown(perms.audit_log or '-')}")
    if not rows:
        print("no rules")
    for i, row in enumerate(rows, 1):  # an escape or a line break cannot forge a rule
        print(f"{i:4}  {row['effect']:5}  {shown(row['rule'])}  [{row['layer']}] "
              f"{shown(row['origin'])}")
    disallowed = policy.disallowed_tools()
    if disallowed:
        print("--disallowedTools: " + shown(",".join(disallowed)))
    return 0


def _lint(args: argparse.Namespace) -> int:
    from toolhost.permissions import lint_policy

    config, policy = _load(args)
    external = [name for name, s in config.servers.items() if s.external is not None]
    findings = lint_policy(policy, servers=list(config.servers), external_servers=external)
    if args.json:
        print(json.dumps([{"code": f.code, "level": f.level, "rule": f.rule,
                           "origin": str(f.origin), "message": f.message} for f in findings],
                         indent=2))
    else:
        from toolhost.errors import shown  # a rule's text is the config's: never obeyed

        for finding in findings:
            print(shown(str(finding)))
        print(f"{len(findings):,} finding(s) in {len(policy.rules):,} rule(s)", file=sys.stderr)
    return 1 if findings else 0


def _vacuous(config: HostConfig, case: Case, outcome: Outcome) -> list[str]:
    """Why ``case``'s decision may not say what its author meant: a tool name that is no
    tool (a typo, ``bash``), or a rule that could not be evaluated for the input (a
    misspelled argument makes a deny rule's ``expr`` fail, which denies)."""
    from toolhost.excerpt import cut

    notes = []
    unknown = _unknown_tool_note(config, case.tool)
    if unknown:
        notes.append(unknown + (" " if unknown.endswith("?") else ". ") + "The case gets what "
                     "any unknown name gets: it tests no tool's rules")
    from toolhost.permissions.authoring.case_inputs import builtin_input_note

    refused = builtin_input_note(case.tool, case.input)  # (a typo'd file_path meets any deny)
    if refused:
        notes.append(refused)
    decision = outcome.decision
    if decision is not None and decision.error:
        notes.append(f"rule {decision.rule!r} could not be evaluated for this input "
                     f"({cut(decision.error, 160)}), which denies every such call: the case "
                     "does not test what the rule matches")
    return notes


def _test(args: argparse.Namespace) -> int:
    from toolhost.config import load_config
    from toolhost.errors import ConfigError, shown  # a case's name and tool: never obeyed
    from toolhost.permissions.authoring.casefile import read_case_file
    from toolhost.permissions.authoring.casetest import run_case
    from toolhost.permissions.callers.check import caller_rules
    from toolhost.permissions.gate import declared_defaults, declared_tool_names
    from toolhost.permissions.policy import compile_policy
    from toolhost.permissions.reading_dirs import reading_dirs

    passed = failed = broken = 0
    for path in args.cases:
        cases = read_case_file(path, need_config=args.config is None)
        for problem in cases.problems:
            print(str(problem), file=sys.stderr)
        for warning in cases.warnings:
            print(f"warning: {shown(str(warning))}", file=sys.stderr)
        broken += bool(cases.problems)
        if cases.not_run:
            print(f"{path}: {cases.not_run:,} case(s) not run: a value of theirs is refused "
                  "(above)", file=sys.stderr)
        config_path = args.config or cases.config
        if config_path is None or not cases.cases:
            continue
        try:
            config = load_config(config_path, layers=not args.no_layers)
            policy = compile_policy(config.permissions, tool_names=declared_tool_names(config),
                                    defaults=declared_defaults(config),
                                    cwd=cases.cwd or config.run.cwd, files=config.files,
                                    reading_dirs=reading_dirs(
                                        config, rules_dir=cases.cwd or config.run.cwd))
        except ConfigError as exc:
            for problem in exc.problems:
                print(str(problem), file=sys.stderr)
            print(f"{path}: the config {config_path} does not load: its "
                  f"{len(cases.cases):,} case(s) were not run", file=sys.stderr)
            broken += 1
            continue
        for case in cases.cases:
            outcome = run_case(policy, case)
            for note in _vacuous(config, case, outcome):  # a pass that proves nothing
                print(shown(config.redact(f"{case.origin}: note: {case.name}: {note}")),
                      file=sys.stderr)
            if case.caller is None and caller_rules(policy, case.tool, case.input):
                print(shown(config.redact(
                    f"{case.origin}: note: {case.name}: decided without a caller; rules with "
                    "callers: take part for some callers (give the case a caller:)")),
                      file=sys.stderr)
            if outcome.passed:
                passed += 1
            else:
                failed += 1
            if args.verbose or not outcome.passed:
                print(shown(config.redact(outcome.line())))
    total = passed + failed
    summary = f"{total:,} case(s): {passed:,} passed, {failed:,} failed"
    if broken:
        summary += f"; {broken:,} file(s) with problems"
    print(("FAIL: " if failed or broken else "PASS: ") + summary)
    return 1 if failed or broken else 0


def main(args: argparse.Namespace) -> int:
    handlers = {"check": _check, "list": _list, "lint": _lint, "test": _test}
    return handlers[args.perm_command](args)
