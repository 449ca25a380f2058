"""Content forms that parse but cannot match what their author most likely meant, for
``validate``: each a (level, message, hint) about one rule's ``Tool(...)`` part.

* ``Read(/etc/passwd)``: one leading ``/`` anchors the path at the directory of the rule's
  file (as Claude Code anchors it at the settings file's project), not at the filesystem
  root. When that directory holds nothing of the path's first part and ``/`` does, the rule
  names a file that is not there: a warning naming the path it names and ``//etc/passwd``.
* ``Bash(npm:* test)``: ``:*`` marks a prefix only at the end of a Bash rule; anywhere else
  ``:`` is a literal character, so the rule matches ``npm:x test`` and not ``npm run test``:
  an error with the rule to write (``Bash(npm * test)``).
* ``Bash(rm /tmp/?)``: ``?`` is literal in a Bash rule (only ``*`` is a wildcard): a warning.
* an allow rule every command of which is not provable or opaque (``Bash(eval:*)``,
  ``Bash(curl * | sh)``, ``Bash(ls > out.txt)``): it allows nothing: a warning.
* ``Read(//etc/{passwd,shadow})``: path patterns have no brace expansion (gitignore-style):
  the rule names a file called ``{passwd,shadow}``: a warning.
* ``Read(C:\\Users\\me\\.ssh\\id_rsa)``: a Windows path; ``\\`` escapes the next character
  in a path pattern and the CLI reports POSIX paths, so it names a relative file
  ``C:Usersme.sshid_rsa``: a warning.
* ``Grep(pattern:secret)``, ``Read(file_path:/x)``: an argument's name where the path
  pattern goes; the rule names a file called ``pattern:secret``: a warning.
* an allow ``Read(//src/**.py)``: a ``**`` that is not a whole segment matches across
  directories here (any depth), where gitignore reads it as ``*`` (one level): a warning.
* (``spec_hints_more``) ``Task(explore agent)``, ``Task(Explore*)``,
  ``Agent(Explore, Plan)``; ``Read(%USERPROFILE%/x)``, ``Read(//~/x)``,
  ``Read(file:///etc/passwd)``, ``Read("//x")``, ``Read(//a, //b)``; ``Bash(^rm.*)``,
  ``Bash(git push --force|-f)``: warnings.
"""

from __future__ import annotations

import os
import re

__all__ = ["content_hints", "never_allows"]

_RULE = re.compile(r"\s*([^()\s]+)\((.*)\)\s*", re.DOTALL)
_INNER_PREFIX = re.compile(r":\*(?=.)", re.DOTALL)
_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
_WINDOWS = re.compile(r"^[A-Za-z]:[\\/]|\\\\|(?:^|[^\\])\\[A-Za-z0-9_.-][^*?\[\\ ]*\\")
# ``Grep(pattern:secret)``: an argument's name where a path pattern goes
_ARG_PREFIX = re.compile(r"(pattern|path|file_path|notebook_path|glob|type|output_mode):")
_GLUED_STARS = re.compile(r"(?<=[^/])\*\*|\*\*(?=[^/])")


def content_hints(tool: str, rule_dir: str, effect: str = "deny") -> list[tuple[str, str, str]]:
    """What is wrong with the content part of the rule pattern ``tool`` (already parsed),
    whose file is in ``rule_dir``, for a rule of ``effect``."""
    found = _RULE.fullmatch(tool)
    if found is None:
        return []
    from toolhost.permissions.authoring.spec_hints_more import (
        agent_hints,
        bash_hints,
        loopback_hints,
        one_tool_hints,
        path_hints,
    )
    from toolhost.permissions.authoring.spec_hints_paste import (
        bash_paste_hints,
        domain_paste_hints,
        path_paste_hints,
    )
    from toolhost.permissions.paths import PATH_TOOLS  # a rule with content: loaded now

    name, spec = found.group(1), found.group(2).strip()
    if name in ("Task", "Agent"):
        return agent_hints(name, spec)
    if name in PATH_TOOLS:
        basic = (path_hints(name, spec) + _braces(name, spec) + _rooted(name, spec, rule_dir)
                 + _windows(name, spec)
                 + _arg_prefix(name, spec) + _unclosed_bracket(name, spec)
                 + _two_rules(name, spec) + path_paste_hints(name, spec)
                 + (_glued_stars(name, spec) + _bare_dir(name, spec) if effect == "allow"
                    else []))
        return basic or one_tool_hints(name, spec, effect)  # (the family: when nothing else)
    if name == "Bash":
        basic = _bash(spec) + bash_paste_hints(spec)  # (the spelling hints only when
        return (basic + bash_hints(spec, "allow" if basic else effect)  # nothing more basic)
                + (_never_allows(spec) if effect == "allow" else []))
    if name == "WebFetch":
        return domain_paste_hints(spec) or loopback_hints(spec, effect)
    return []


_GLUED_RULE = re.compile(r"\)\s*,?\s*[A-Za-z_][A-Za-z0-9_]*\(")


def _two_rules(name: str, spec: str) -> list[tuple[str, str, str]]:
    """``Read(//etc/shadow), Read(//x)`` in one string: one path pattern holding ``), Read(``."""
    found = _GLUED_RULE.search(spec)
    if found is None:
        return []
    return [("warning", f"{name}({spec}) looks like two rules in one string: it names one "
             f"path holding {found.group(0)!r}", "write each rule as its own list item")]


def _unclosed_bracket(name: str, spec: str) -> list[tuple[str, str, str]]:
    """A ``[`` with no ``]`` after it (as ``compile_path_glob`` reads it) is a literal
    character: ``Read(//etc/pass[wd)`` names the file ``pass[wd``, almost never meant."""
    i = 0
    while i < len(spec):
        if spec[i] == "\\":
            i += 2
            continue
        if spec[i] == "[":
            from toolhost.permissions.pathclass import bracket

            try:
                closed = bracket(spec, i)
            except ValueError:  # (a load error already says what is wrong with it)
                return []
            if closed is None:
                return [("warning", f"'[' in {spec!r} opens no character class (no ']' after "
                         f"it): the rule names a path holding a literal '['",
                         "close the class with ']', or write '\\[' for a literal bracket")]
            i = closed[1] - 1
        i += 1
    return []


def _braces(name: str, spec: str) -> list[tuple[str, str, str]]:
    found = _BRACES.search(spec)
    if found is None:
        return []
    first = spec[:found.start()] + found.group(1).split(",")[0] + spec[found.end():]
    return [("warning", f"braces are literal in a path pattern (gitignore-style, no brace "
             f"expansion): {spec!r} matches only a name holding {found.group(0)!r} as written",
             f"write one rule per alternative: {name}({first}), ...")]


def _arg_prefix(name: str, spec: str) -> list[tuple[str, str, str]]:
    found = _ARG_PREFIX.match(spec)
    if found is None:
        return []
    return [("warning", f"{name}(...) takes a path pattern, not '{found.group(1)}:': "
             f"{spec!r} names a file called {spec!r} (the tool's other arguments are "
             "not matched by a content form)",
             f"write {name}(<path>), or a structured rule with "
             f"'when: {{{found.group(1)}: ...}}'")]


def _windows(name: str, spec: str) -> list[tuple[str, str, str]]:
    if not _WINDOWS.search(spec):
        return []
    posix = re.sub(r"\\+", "/", spec)  # (``\\etc\\shadow``: the root's ``/etc/shadow``)
    example = f"{name}(/{posix})" if posix.startswith("/") and not posix.startswith("//") \
        else f"{name}(//home/me/...) or {name}(~/...)"
    return [("warning", f"{spec!r} looks like a Windows path: in a path pattern '\\' escapes the "
             "next character and the CLI reports POSIX paths ('/'), so it names no file meant",
             f"write the POSIX path, e.g. {example}")]


def _bare_dir(name: str, spec: str) -> list[tuple[str, str, str]]:
    """An allow ``Read(.)``/``Read(~)``: the directory itself, not the files inside it."""
    if spec not in (".", "~"):
        return []
    where = "working" if spec == "." else "home"
    return [("warning", f"an allow {name}({spec}) names the {where} directory itself, not the "
             "files inside it (as an allow of any directory)",
             f"write {name}({spec}/**) for everything inside it")]


def _glued_stars(name: str, spec: str) -> list[tuple[str, str, str]]:
    found = _GLUED_STARS.search(spec)
    if found is None:
        return []
    one = re.sub(r"\*\*", "*", spec)
    return [("warning", f"'**' in {spec!r} is not a whole path segment: toolhost matches it "
             "across directories (any depth), so this allow covers more than one level, "
             "which gitignore's '**' would not",
             f"write {name}({one}) for one level, or a whole '**/' segment for any depth")]


# top directories of the file systems rules are written for, there or not on this machine
# (a team's macOS paths checked on Linux CI: Read(/Users/me/.ssh/**))
_ROOTS = frozenset({"Users", "Volumes", "Library", "System", "Applications", "private",
                    "home", "etc", "usr", "var", "opt", "tmp", "root", "mnt", "srv", "proc",
                    "dev", "sys", "bin", "sbin", "lib", "run", "nix", "snap", "workspaces"})


def _rooted(name: str, spec: str, rule_dir: str) -> list[tuple[str, str, str]]:
    if not spec.startswith("/") or spec.startswith("//"):
        return []
    first = spec[1:].split("/", 1)[0]
    if not first or set(first) & set("*?[{") or first in (".", ".."):
        return []
    anchored = os.path.join(rule_dir, first)
    if os.path.lexists(anchored) or not (os.path.lexists("/" + first) or first in _ROOTS):
        return []
    return [("warning", f"{spec!r} is anchored at the directory of the rule's file: it names "
             f"{os.path.join(rule_dir, spec[1:])!r}, where there is no {first!r}, not "
             f"{spec!r} from the filesystem root",
             f"for the absolute path write {name}(/{spec})")]


# programs a rule names in a capitalised spelling by mistake (``Bash(Git push:*)``)
_COMMON = frozenset({
    "git", "rm", "curl", "wget", "sudo", "ssh", "scp", "rsync", "docker", "podman", "kubectl",
    "helm", "terraform", "npm", "npx", "yarn", "pnpm", "pip", "pip3", "python", "python3",
    "node", "deno", "bun", "make", "cargo", "go", "gh", "aws", "gcloud", "az", "chmod",
    "chown", "mv", "cp", "dd", "kill", "pkill", "bash", "sh", "zsh", "env", "find", "xargs",
    "brew", "apt", "dnf", "yum", "mkfs", "shred", "truncate", "eval", "exec", "nc", "perl",
    "ruby", "php", "psql", "mysql", "redis", "mongo", "sqlite3", "tar", "zip", "unzip"})


def _bash(spec: str) -> list[tuple[str, str, str]]:
    out = []
    if _INNER_PREFIX.search(spec):
        fixed = _INNER_PREFIX.sub(" *", spec).replace("  *", " *")
        out.append(("error", f"':*' marks a prefix only at the end of a Bash rule; in {spec!r} "
                    "the ':' is a literal character, so the rule matches no command as "
                    "meant", f"write Bash({fixed})"))
    program = spec.split(" ", 1)[0].removesuffix(":*").rsplit("/", 1)[-1]
    lower = program.lower()
    if len(program) > 1 and lower != program and lower.isalnum() and (
            program.isupper() or lower in _COMMON):
        fixed = spec.replace(program, lower, 1)
        out.append(("warning", f"program names are matched as written: {program!r} is not "
                    f"{lower!r} (on Linux another program, most likely none), so this rule "
                    f"does not meet '{lower} ...'", f"write Bash({fixed})"))
    if any("?" in word and "://" not in word for word in spec.split()):
        out.append(("warning", f"'?' is a literal character in a Bash rule (only '*' is a "
                    f"wildcard), so {spec!r} matches only a command with a '?' there",
                    "write '*' for any characters"))
    return out


def never_allows(spec: str) -> str | None:
    """Why an allow rule ``Bash(spec)`` allows no command it matches, or None: every command it
    matches is not provable (``Bash(eval:*)``, ``Bash(sudo -s)``, ``Bash(curl * | sh)``) or
    opaque (``Bash(ls > out.txt)``, ``Bash(echo $(date))``). Wildcards are tried as a plain
    word; a prefix rule only when its command cannot be completed into a provable one."""
    from toolhost.permissions.bash.programs import analyze_line
    from toolhost.permissions.shell.parse import ShellSyntaxError, parse_command

    prefix = spec.endswith(":*") or spec.endswith(" *")
    body = spec[:-2] if prefix else spec
    # ("log": a git subcommand there must be one of git's own, ``Bash(git * main)``)
    probes = [p + tail for word in ("x", "log") for p in [body.replace("*", word)]
              for tail in ("", " x")[:1 + prefix]]
    reasons = []
    for probe in probes:
        try:
            reason = analyze_line(probe).reason
            opaque = parse_command(probe).opaque
        except ShellSyntaxError:
            return None
        if reason is None and not opaque:
            return None
        reasons.append(reason or "it has a command substitution, a redirection to or from a "
                       "file or a here-document, which no allow rule allows")
    return reasons[0]


def _never_allows(spec: str) -> list[tuple[str, str, str]]:
    why = never_allows(spec)
    if why is None:
        return []
    return [("warning", f"this allow rule can allow no command it matches: {why}",
             "such a command is never allowed (docs/permissions.md, 'How a command is "
             "decided'): allow the commands it runs, or make it a deny or ask rule")]
