"""``toolhost validate FILE...``: every problem of every file, one per line, then an exit code."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolhost.commands._checks import Checked
    from toolhost.config.model import HostConfig
    from toolhost.errors import Problem

HELP = "check config files: every problem at once, with file:line:col and key path"

DESCRIPTION = """\
Check one or more config files (YAML or TOML) the way `toolhost run` would load them: the
format version, every key and type, names, extends, ${VAR} interpolation, the permission
rules, and (unless --no-compile) each tool's backend: imports, templates and schemas. Every
stage runs, so one run shows every problem: a key error does not hide an import error.

Rules are checked against what they name: a target that matches no declared or built-in tool
(mcp__files__lss, mcp__devv, bash), a when/expr/rewrite path the tool's inputSchema cannot have
(when: {patern: ...}), an operator that can never hold for the argument's type (min on a
string), a plain value that looks like a pattern (when: {path: "/etc/**"}: a warning).
Warnings print as "warning:" and do not fail the check unless --strict.

Problems go to stderr, one per line, in the form
  FILE:LINE:COL: key.path: message (hint)
Exit status: 0 when every file is valid, 1 otherwise.

Notes (also on stderr, starting with "note:") do not fail the check, even with --strict:
they point at command argv positions where a value starts an argument with no "--" before it,
so the program may read it as an option (a value starting with '-' is refused there at call
time), and at command and http tools with no description (the model sees their name alone).

By default the user layer (~/.config/toolhost/config.yaml) and toolhost.local.yaml next to
each file are merged in, as they would be at run time; --no-layers checks the files alone.

Examples:
  toolhost validate team.yaml
  toolhost validate examples/configs/*.yaml examples/configs/*.toml
  toolhost validate --no-layers --no-compile ci/config.toml
  toolhost validate --strict team.yaml             fail on warnings too (CI)
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
    parser.add_argument("--strict", action="store_true",
                        help="warnings fail the check too (for CI)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print nothing for valid files")


def _check(file: str, args: argparse.Namespace) -> tuple[HostConfig | None, Checked]:
    """Every stage that can run: the config (whatever of it checked), the rules, the tools.
    Returns (config or None when the file could not be read, what the check found)."""
    from toolhost.commands._checks import Checked, check_loaded
    from toolhost.config.loader import load_config
    from toolhost.errors import ConfigError

    errors: list[Problem] = []
    try:
        config = load_config(file, layers=not args.no_layers, fragment=args.fragment,
                             problems=errors)
    except ConfigError as exc:
        return None, Checked(list(exc.problems), [], None)
    return config, check_loaded(config, errors, compile_tools=not args.no_compile,
                                connect=args.connect)


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._startup import collector_off_until_started

    # A check is all start: what it loads lives until it ends, and the collector would walk
    # it ~20 times for the demo config (toolhost.commands._startup).
    with collector_off_until_started():
        return _validate(args)


def _validate(args: argparse.Namespace) -> int:
    import dataclasses

    from toolhost.config.checks import MAX_PROBLEMS, capped

    failed = 0
    config: HostConfig | None = None
    for file in args.files:
        # the last file's config goes before the next is read: each file just under the
        # value limit (~230 MB while read) would add its config to the next one's peak
        config = None
        config, (errors, warnings, compiled_tools) = _check(file, args)
        notes = [w for w in warnings if w.message.startswith("note: ")]
        warnings = [w for w in warnings if w not in notes]
        shown = [*((p, "") for p in errors), *((p, "warning: ") for p in warnings)]
        shown.sort(key=lambda item: (item[0].file != file, item[0].file, item[0].line,
                                     item[0].column))
        if len(shown) > MAX_PROBLEMS:  # the rest counted in one line (config.checks)
            rest = capped([p for p, _ in shown], file)[-1]
            shown = [*shown[:MAX_PROBLEMS], (rest, "")]
        for problem, level in shown:
            if level:
                problem = dataclasses.replace(problem, message=level + problem.message)
            print(str(problem), file=sys.stderr)
        if errors or (args.strict and warnings):
            failed += 1
            continue
        if not args.quiet and config is not None:
            tools = compiled_tools if compiled_tools is not None else sum(
                len(s.tools) for s in config.servers.values())
            extra = f", {_count(len(warnings), 'warning')}" if warnings else ""
            unstarted = 0 if args.connect else sum(
                1 for s in config.servers.values() if s.upstream is not None)
            if unstarted:  # an MCP server's tools are known once it is started
                extra += (f", and the tools of {_count(unstarted, 'imported server')}: "
                          "--connect starts and counts them")
            from toolhost.errors import shown as one_line

            # a line break or an escape sequence in a file's name must not forge a line
            print(f"{one_line(file)}: ok ({_count(len(config.servers), 'server')}, "
                  f"{_count(tools, 'tool')}{extra})")
            from toolhost.backends.notes import validate_notes
            from toolhost.commands._configs import redacted

            # after the verdict: facts about running it, not problems
            said = sorted([*notes, *redacted(config, validate_notes(config))],
                          key=lambda p: (p.file != file, p.file, p.line, p.column))
            for note in capped(said, file):
                print(str(note), file=sys.stderr)
            from toolhost.lockfile.localrepo import local_changes_of_files

            for line in local_changes_of_files(config.files):  # a local team repo's edits
                print(f"{one_line(file)}: note: {one_line(line)}", file=sys.stderr)
    return 1 if failed else 0


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")
