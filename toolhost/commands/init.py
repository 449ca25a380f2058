"""``toolhost init [DIR]``: a first config that works, with its tools, a scenario and CI."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HELP = "scaffold a working config, a tools module, a scenario test and a CI script"

DESCRIPTION = """\
Write a small project that works at once and shows each part of toolhost:

  toolhost.yaml             a server with a Python tool and a command tool, and rules
  toolhost_tools.py         the Python tool (its schema comes from the signature)
  scenarios/smoke.yaml      a scripted-model scenario: `toolhost run --script` tests the
                            config end to end with the real Claude CLI, no API key needed
  policy-tests.yaml         policy tests: `toolhost permissions test` checks each rule decides
                            what you meant
  toolhost-ci.sh            the checks to run in CI: validate, the policy tests, the scenario

Nothing is overwritten: existing files are named and init stops (exit 1) unless --force.

Examples:
  toolhost init                      into the current directory
  toolhost init tools/agent --name shop
  cd tools/agent && toolhost validate toolhost.yaml && sh toolhost-ci.sh
"""

CONFIG = """\
# Made by `toolhost init`. The grammar: docs/config.md; rules: docs/permissions.md.
toolhost: 1
servers:
  {name}:
    description: Tools for this project
    cwd: .                                  # command tools run here (this file's directory)
    tools:
      greet:
        python: toolhost_tools:greet        # toolhost_tools.py beside this file
      count_lines:
        description: Count the lines of a file of this project
        command: [wc, -l, --, "{{{{ path }}}}"]   # argv, never a shell; `--` ends the options
        params:
          path: {{type: string, description: A file path relative to this directory}}
        annotations: {{readOnlyHint: true}}
        timeout: 5s
permissions:
  default: ask                              # a tool without a rule is asked about
  allow:
    - mcp__{name}__greet
    - mcp__{name}__count_lines
  deny:
    - tool: mcp__{name}__count_lines
      when: {{path: {{regex: "(?i).*[.]env.*"}}}}   # any case: macOS and Windows ignore it
      message: Environment files stay private.
    - "Bash(rm:*)"
"""

TOOLS = '''\
"""Python tools for toolhost.yaml. Each function is one tool; its signature, type hints and
docstring become the tool's inputSchema and description."""

from __future__ import annotations


def greet(name: str, excited: bool = False) -> str:
    """Greet someone by name.

    Args:
        name: Who to greet.
        excited: End with an exclamation mark instead of a full stop.
    """
    return f"Hello, {{name}}{{'!' if excited else '.'}}"
'''

SCENARIO = """\
# A scripted model for `toolhost run toolhost.yaml --script scenarios/smoke.yaml -p go`:
# the real Claude CLI makes these calls and each result is checked (docs/running.md).
description: greet, count lines, and a denied read of an environment file
turns:
  - text: Let me try the tools.
    tool_calls:
      - {{tool: mcp__{name}__greet, input: {{name: Ada, excited: true}}}}
      - {{tool: mcp__{name}__count_lines, input: {{path: toolhost.yaml}}}}
      - {{tool: mcp__{name}__count_lines, input: {{path: prod.env}}}}
  - expect_results:
      - {{equals: "Hello, Ada!"}}
      - {{contains: "toolhost.yaml"}}
      - {{is_error: true, contains: "Environment files stay private."}}
    text: All three tools behaved as the rules say.
"""

CI = """\
#!/bin/sh
# The checks to run in CI (and before you push): every step exits non-zero on a problem.
# toolhost is not on PyPI (the package index has an unrelated project of that name, which
# a bare `pip install` would fetch and run): install it from its git repository, with the
# sdk extra, which brings the Claude CLI the scenario step runs. In GitHub Actions:
#   - run: pip install 'toolhost[sdk] @ git+https://<your toolhost repository>' && sh toolhost-ci.sh
set -eu
cd "$(dirname "$0")"
toolhost validate toolhost.yaml
toolhost permissions test policy-tests.yaml
toolhost run toolhost.yaml --script scenarios/smoke.yaml -p "Try the tools" --output json \\
  > /dev/null
echo "toolhost checks passed"
"""

POLICY_TESTS = """\
# Policy tests for toolhost.yaml (docs/permissions.md):
#   toolhost permissions test policy-tests.yaml
config: toolhost.yaml
cases:
  - tool: mcp__{name}__greet
    input: {{name: Ada}}
    expect: allow
  - name: environment files stay private
    tool: mcp__{name}__count_lines
    input: {{path: prod.env}}
    expect: deny
  - name: in any case (.ENV is .env on macOS and Windows)
    tool: mcp__{name}__count_lines
    input: {{path: config/.ENV}}
    expect: deny
  - name: no rm, however it is spelled
    tool: Bash
    input: {{command: "/usr/bin/env rm -rf build"}}
    expect: deny
  - name: a tool without a rule is asked about
    tool: Read
    input: {{file_path: README.md}}
    expect: ask
"""

FILES = {
    "toolhost.yaml": CONFIG,
    "toolhost_tools.py": TOOLS,
    "scenarios/smoke.yaml": SCENARIO,
    "policy-tests.yaml": POLICY_TESTS,
    "toolhost-ci.sh": CI,
}

# the other names a project's config goes by: init's toolhost.yaml beside one is a second
# config, which no command reads with it
OTHER_CONFIGS = ("toolhost.yml", "toolhost.toml")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR",
                        help="where to write (created if missing; default: here)")
    parser.add_argument("--name", default="project", help="the server's name (default: "
                        "project; tools are mcp__NAME__TOOL)")
    parser.add_argument("--force", action="store_true", help="overwrite existing files")


def main(args: argparse.Namespace) -> int:
    from toolhost.commands._argtypes import server_key_problem
    from toolhost.errors import shown  # a DIR holding a line break or an escape: one line

    if problem := server_key_problem(args.name):  # the same check as install/mcp-config
        print(f"toolhost init: {problem}", file=sys.stderr)
        return 2
    root = Path(args.directory)
    problem = _unusable(root, args.force)
    if problem:
        print(f"toolhost init: {problem}", file=sys.stderr)
        return 1
    existing = [rel for rel in FILES if os.path.lexists(root / rel)]  # a broken link too
    other = [name for name in OTHER_CONFIGS if os.path.lexists(root / name)]
    if other and not existing and not args.force:  # a second config beside the first
        print(f"toolhost init: {shown(str(root / other[0]))} is already a toolhost config "
              "here; nothing "
              f"was written (`toolhost validate {shown(sh(str(root / other[0])))}` checks it; "
              "--force writes toolhost.yaml and the rest beside it)", file=sys.stderr)
        return 1
    if existing and not args.force:  # --force said last: it throws away a person's work
        there = [shown(str(root / rel)) for rel in existing]
        named = there[0] if len(there) == 1 else ", ".join(there[:-1]) + " and " + there[-1]
        check = (f"`toolhost validate {shown(sh(str(root / 'toolhost.yaml')))}` checks the config "
                 "there; " if "toolhost.yaml" in existing else "")
        print(f"toolhost init: {named} already exist{'s' if len(there) == 1 else ''}; nothing "
              f"was written ({check}`toolhost init DIR` writes the example into a new "
              "directory; --force overwrites them)", file=sys.stderr)
        return 1
    for rel, template in FILES.items():
        path = root / rel
        try:
            _write_new(path, template.format(name=args.name), replace=args.force)
        except OSError as exc:
            print(f"toolhost init: cannot write {shown(str(path))}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 1
        print(f"wrote {shown(str(path))}")
    os.chmod(root / "toolhost-ci.sh", 0o755)
    said = _ignore_local(root)
    if said:
        print(said)
    steps = [] if root == Path(".") else [f"cd {sh(str(root))}"]
    steps += ["toolhost validate toolhost.yaml",
              f"toolhost call toolhost.yaml {args.name}.greet name=Ada",
              _ci_step(), _install_step(root)]
    print("\nNext:\n" + "".join(f"  {step}\n" for step in steps), end="")
    return 0


IGNORED = "toolhost.local.*"  # a person's own overrides (and the lock beside them)


def _ignore_local(root: Path) -> str:
    """``toolhost.local.*`` in ``root``'s .gitignore (created, or appended to): the docs call
    the local override git-ignored, and nothing made it so, so a person's own settings and
    secrets went into the team's repository with the next `git add .`. What was done, or
    ""; never through a symlink, and a .gitignore it cannot read or write is left alone,
    with a note saying what to add by hand."""
    path = root / ".gitignore"
    lines = "# a person's own toolhost settings (toolhost.local.yaml) and their lock\n" \
            f"{IGNORED}\n"
    by_hand = (f"note: {path} was left alone (WHY): add {IGNORED} to the repository's "
               "ignore rules, so a person's own overrides and secrets are never committed")
    try:
        if path.is_symlink():
            return by_hand.replace("WHY", "a symbolic link")
        if path.exists() and not path.is_file():
            return by_hand.replace("WHY", "not a file")
        if not path.exists():
            _write_new(path, lines, replace=False)
            return f"wrote {path}"
        text = path.read_text(encoding="utf-8")
        if any(line.strip().startswith("toolhost.local") for line in text.splitlines()):
            return ""
        with path.open("a", encoding="utf-8") as handle:
            handle.write(("" if not text or text.endswith("\n") else "\n") + lines)
        return f"added {IGNORED} to {path}"
    except (OSError, UnicodeDecodeError) as exc:
        why = getattr(exc, "strerror", None) or "not UTF-8"
        return by_hand.replace("WHY", f"cannot update it: {why}")


def _ci_step() -> str:
    """The CI script's step; when no Claude CLI is found here, what installs one (the script's
    scenario step would stop there)."""
    from toolhost.errors import CLINotFoundError
    from toolhost.runner.discovery import find_cli

    try:
        find_cli()
    except CLINotFoundError:
        return ("sh toolhost-ci.sh                  # needs the Claude CLI, not found here: "
                "install toolhost with its sdk extra ('.[serve,sdk]' in its clone), or npm "
                "install -g @anthropic-ai/claude-code")
    return "sh toolhost-ci.sh                  # a real Claude CLI session, scripted model"


def _install_step(root: Path) -> str:
    """The `install claude-code` step, run in ``root``. Inside a git repository whose top is
    above ``root``, it is run from the top: Claude Code is started there and reads the
    .mcp.json of the directory it starts in (or above), never one below."""
    step = "toolhost install claude-code toolhost.yaml   # use the tools from Claude Code"
    here = Path(os.path.abspath(root))
    for top in (here, *here.parents):
        if os.path.lexists(top / ".git"):
            if top == here:
                return step
            up = os.path.relpath(top, here)
            down = (here.relative_to(top) / "toolhost.yaml").as_posix()
            return (f"cd {sh(up)} && toolhost install claude-code {sh(down)}   # .mcp.json at the "
                    "repository's top, where Claude Code is started")
    return step


def sh(path: str) -> str:
    """``path`` as one word of a shell command pasted as printed: quoted when it holds a
    space, a quote or another character the shell reads (``'my agent'``), and never read as
    an option (``./-x``)."""
    import shlex

    return shlex.quote(f"./{path}" if path.startswith("-") else path)


def _unusable(root: Path, force: bool) -> str:
    """Why init cannot write into ``root`` (a file, a broken link, a symlink on the way to
    one of its files); "" when it can."""
    if os.path.lexists(root) and not root.is_dir():
        what = "a broken symbolic link" if root.is_symlink() else "not a directory"
        return f"{root} is {what}; choose another directory"
    for rel in FILES:
        for parent in list(Path(rel).parents)[-2::-1]:  # the directories inside root
            here = root / parent
            if here.is_symlink() or (os.path.lexists(here) and not here.is_dir()):
                return (f"{here} is {'a symbolic link' if here.is_symlink() else 'a file'}; "
                        "init writes no file through it (move it away)")
        target = root / rel
        if force and target.is_dir() and not target.is_symlink():
            return f"{target} is a directory; --force replaces files only"
    return ""


def _write_new(path: Path, text: str, *, replace: bool) -> None:
    """Create ``path`` (its directories too); never through a symlink: with ``replace`` an
    existing file or link is removed first, else it is an error (O_EXCL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if replace and os.path.lexists(path):
        path.unlink()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
