"""``toolhost permissions check|list|lint``: ask the policy, show it, review it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
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

Exit status: check exits 0 whatever the decision (read it from the output, or pass
--exit-code for 0 allow / 10 deny / 11 ask); lint exits 1 when it has findings; a config that
does not load exits 1; test exits 1 when a case fails or a case file is malformed; bad
arguments exit 2.
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
        "  toolhost permissions check team.yaml mcp__db__drop --exit-code || echo not allowed")
    check.add_argument("config", metavar="CONFIG")
    check.add_argument("tool", metavar="TOOL_NAME",
                       help="the name the CLI asks about: mcp__SERVER__TOOL for the config's "
                       "tools (not SERVER.TOOL), Bash, Read, Edit, WebFetch, ... for built-ins")
    check.add_argument("--input", default="{}", metavar="JSON",
                       help="the call's arguments as a JSON object; @FILE reads a file, "
                       "- reads stdin (default: {}); at most 16 MiB, nested at most 256 deep, "
                       "no NaN or Infinity")
    check.add_argument("--json", action="store_true", help="print a JSON object")
    check.add_argument("--cwd", help="working directory relative paths resolve against "
                       "(default: run.cwd of the config, else the current directory)")
    check.add_argument("--exit-code", action="store_true",
                       help="exit 0 for allow, 10 for deny, 11 for ask")
    for name, text in (("list", "every rule in evaluation order with its origin"),
                       ("lint", "rules that never match, are shadowed, or allow too much")):
        cmd = sub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".",
                             formatter_class=formatter)
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
    from toolhost.permissions.gate import declared_tool_names
    from toolhost.permissions.policy import compile_policy

    config = load_config(args.config, layers=not args.no_layers)
    policy = compile_policy(config.permissions, tool_names=declared_tool_names(config),
                            cwd=cwd or config.run.cwd)
    return config, policy


def _read_input(text: str) -> dict[str, Any] | str:
    """``--input``'s object, or what is wrong with it (see toolhost.commands._jsonarg)."""
    from toolhost.commands._jsonarg import JsonArgumentError, json_argument

    try:
        value = json_argument("--input", text, stdin=True)
    except JsonArgumentError as exc:
        return str(exc)
    if not isinstance(value, dict):
        return f"--input must be a JSON object, not {type(value).__name__}"
    return value


def _unknown_tool_note(config: HostConfig, name: str) -> str:
    """Rules match the names the CLI asks about (mcp__server__tool, Bash, ...): say so when
    ``name`` is not one of them, since the decision for a misspelt name means nothing."""
    import difflib

    from toolhost.permissions.gate import declared_tool_names
    from toolhost.permissions.lint import BUILTIN_TOOLS

    declared = declared_tool_names(config)
    external = tuple(f"mcp__{n}__" for n, s in config.servers.items() if s.external is not None)
    if name in declared or name in BUILTIN_TOOLS or name.startswith(external):
        return ""
    wire = "mcp__" + name.replace(".", "__", 1) if "." in name else ""
    close = [wire] if wire in declared else difflib.get_close_matches(
        name, [*declared, *BUILTIN_TOOLS], n=1)
    return (f"{name} is not a tool of this config nor a built-in tool"
            + (f"; did you mean {close[0]}?" if close else ""))


def _check(args: argparse.Namespace) -> int:
    tool_input = _read_input(args.input)
    if isinstance(tool_input, str):
        print(f"toolhost permissions check: {tool_input}", file=sys.stderr)
        return 2
    config, policy = _load(args, args.cwd)
    note = _unknown_tool_note(config, args.tool)
    if note:
        print(f"toolhost permissions check: note: {note}", file=sys.stderr)
    decision = policy.decide(args.tool, tool_input)
    rule = policy.rule_for(decision)
    out: dict[str, Any] = {
        "decision": decision.behavior, "tool": args.tool, "rule": decision.rule,
        "origin": str(decision.origin) if decision.origin else None,
        "layer": rule.layer if rule else None, "answered_by": decision.answered_by,
        "message": decision.message or None,
    }
    if decision.updated_input is not None:
        out["updatedInput"] = dict(decision.updated_input)
    if args.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        if decision.rule is None:
            print(f"{decision.behavior}: no rule matches {args.tool}; "
                  f"the default is {policy.default}")
        else:
            print(f"{decision.behavior}: {decision.rule}  ({decision.origin}"
                  + (f", layer {rule.layer})" if rule else ")"))
        if decision.message:
            print(f"message: {config.redact(decision.message)}")
        if decision.updated_input is not None:
            print("updatedInput: " + json.dumps(out["updatedInput"], ensure_ascii=False))
    return EXIT_BY_DECISION[decision.behavior] if args.exit_code else 0


def _list(args: argparse.Namespace) -> int:
    config, policy = _load(args)
    perms = config.permissions
    rows = [{"effect": r.effect, "rule": r.text, "origin": str(r.origin), "layer": r.layer,
             **({"message": r.message} if r.message else {})} for r in policy.rules]
    if args.json:
        print(json.dumps({"default": perms.default, "ask_mode": perms.ask_mode,
                          "audit_log": perms.audit_log, "rules": rows,
                          "disallowedTools": policy.disallowed_tools()}, indent=2))
        return 0
    print(f"default: {perms.default}   ask_mode: {perms.ask_mode}   "
          f"audit_log: {perms.audit_log or '-'}")
    if not rows:
        print("no rules")
    for i, row in enumerate(rows, 1):
        print(f"{i:4}  {row['effect']:5}  {row['rule']}  [{row['layer']}] {row['origin']}")
    disallowed = policy.disallowed_tools()
    if disallowed:
        print("--disallowedTools: " + ",".join(disallowed))
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
        for finding in findings:
            print(finding)
        print(f"{len(findings)} finding(s) in {len(policy.rules)} rule(s)", file=sys.stderr)
    return 1 if findings else 0


def _test(args: argparse.Namespace) -> int:
    from toolhost.config import load_config
    from toolhost.errors import ConfigError
    from toolhost.permissions.casefile import read_case_file
    from toolhost.permissions.casetest import run_case
    from toolhost.permissions.gate import declared_tool_names
    from toolhost.permissions.policy import compile_policy

    passed = failed = broken = 0
    for path in args.cases:
        cases = read_case_file(path, need_config=args.config is None)
        for problem in cases.problems:
            print(str(problem), file=sys.stderr)
        for warning in cases.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        broken += bool(cases.problems)
        config_path = args.config or cases.config
        if config_path is None or not cases.cases:
            continue
        try:
            config = load_config(config_path, layers=not args.no_layers)
            policy = compile_policy(config.permissions, tool_names=declared_tool_names(config),
                                    cwd=cases.cwd or config.run.cwd)
        except ConfigError as exc:
            for problem in exc.problems:
                print(str(problem), file=sys.stderr)
            print(f"{path}: the config {config_path} does not load: its "
                  f"{len(cases.cases)} case(s) were not run", file=sys.stderr)
            broken += 1
            continue
        for case in cases.cases:
            outcome = run_case(policy, case)
            if outcome.passed:
                passed += 1
            else:
                failed += 1
            if args.verbose or not outcome.passed:
                print(config.redact(outcome.line()))
    total = passed + failed
    summary = f"{total} case(s): {passed} passed, {failed} failed"
    if broken:
        summary += f"; {broken} file(s) with problems"
    print(("FAIL: " if failed or broken else "PASS: ") + summary)
    return 1 if failed or broken else 0


def main(args: argparse.Namespace) -> int:
    handlers = {"check": _check, "list": _list, "lint": _lint, "test": _test}
    return handlers[args.perm_command](args)
