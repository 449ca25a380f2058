"""``toolhost validate FILE...``: every problem of every file, one per line, then an exit code."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem

HELP = "check config files: every problem at once, with file:line:col and key path"

DESCRIPTION = """\
Check one or more config files (YAML or TOML) the way `toolhost run` would load them: the
format version, every key and type, names, extends, ${VAR} interpolation, the permission
rules (patterns, `when` operators, `expr`, `rewrite`), and (unless --no-compile) each tool's
backend: imports, templates and schemas.

Problems go to stderr, one per line, in the form
  FILE:LINE:COL: key.path: message (hint)
Exit status: 0 when every file is valid, 1 otherwise.

Notes (also on stderr, starting with "note:") do not fail the check: they point at command
argv positions where a value starts an argument with no "--" before it, so the program may
read it as an option (a value starting with '-' is refused there at call time).

By default the user layer (~/.config/toolhost/config.yaml) and toolhost.local.yaml next to
each file are merged in, as they would be at run time; --no-layers checks the files alone.

Examples:
  toolhost validate team.yaml
  toolhost validate examples/configs/*.yaml examples/configs/*.toml
  toolhost validate --no-layers --no-compile ci/config.toml
  toolhost validate --fragment team/base.yaml    a file other configs extend
  toolhost validate --connect gateway.yaml        start imported servers, check reshaping
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="config files to check")
    parser.add_argument("--no-layers", action="store_true",
                        help="ignore the user config and toolhost.local.* files")
    parser.add_argument("--connect", action="store_true",
                        help="also start every imported MCP server (mcp:) and check its tools "
                        "and their reshaping; offline by default")
    parser.add_argument("--no-compile", action="store_true",
                        help="check the config only; do not bind tools to their backends")
    parser.add_argument("--fragment", action="store_true",
                        help="the files are fragments meant to be extended (`extends:`): "
                        "the format version may be missing")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print nothing for valid files")


def _rule_problems(config: HostConfig) -> list[Problem]:
    """What compiling the permission rules reports (a rule that does not parse, an unknown
    `when` operator, an `expr` syntax error): `run` would refuse to start on these."""
    from toolhost.errors import ConfigError
    from toolhost.permissions import compile_policy
    from toolhost.permissions.gate import declared_tool_names

    try:
        compile_policy(config.permissions, tool_names=declared_tool_names(config),
                       cwd=config.run.cwd)
    except ConfigError as exc:
        return list(exc.problems)
    return []


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._configs import close, compile_config, redacted
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    failed = 0
    for file in args.files:
        try:
            config = load_config(file, layers=not args.no_layers, fragment=args.fragment)
            rule_problems = _rule_problems(config)
            if not args.no_compile:
                try:
                    compiled = compile_config(config, connect=args.connect)
                except ConfigError as exc:
                    raise ConfigError(redacted(config, [*exc.problems, *rule_problems])) \
                        from None
                close(compiled)
            if rule_problems:
                raise ConfigError(redacted(config, rule_problems))
        except ConfigError as exc:
            failed += 1
            for problem in exc.problems:
                print(str(problem), file=sys.stderr)
            continue
        if not args.quiet:
            tools = sum(len(s.tools) for s in config.servers.values())
            print(f"{file}: ok ({len(config.servers)} servers, {tools} tools)")
            from toolhost.backends.command_checks import option_notes

            for note in redacted(config, option_notes(config)):
                print(str(note), file=sys.stderr)
    return 1 if failed else 0
