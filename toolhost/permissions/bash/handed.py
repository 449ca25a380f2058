"""Command lines a program hands to a shell must be provable too.

The deny rules try the strings a program runs as a command line (``command_strings``: a git
alias ``!...`` or ``core.pager`` value, a sed ``e`` command or ``s///e`` replacement, an awk
``system("...")``, ``tar --to-command=...``, a vim ``-c '!...'``, ``gdb -ex 'shell ...'``).
Once only the deny rules looked at them: ``git -c alias.k='!r${E:+}m x' k`` or
``sed -n '1e r$()m x'`` named no ``rm`` to ``Bash(rm:*)``, and ``allow: Bash`` allowed the
line, while ``sh`` ran ``rm``. Such a string is now analysed as a command line of its own
(what a ``sh -c`` string is): a program word that is not a plain literal, ``eval``, a string
that does not parse ... make the whole line not provable.
"""

from __future__ import annotations

import re

from toolhost.permissions.bash.command_strings import _SED_SUB, _escaped, command_strings
from toolhost.permissions.bash.forms import TOO_MANY_FORMS, command_forms
from toolhost.permissions.bash.interpreters import (
    _INLINE_CODE,
    _VERSIONED,
    _literals,
    _ssh_parse,
    base,
    reads_program_from_stdin,
)
from toolhost.permissions.bash.programs import SHELLS, analyze_line
from toolhost.permissions.bash.runners import _option_values, is_runner
from toolhost.permissions.shell.parse import ParsedCommand, ShellSyntaxError, parse_command

__all__ = ["handed_reason", "local_strings"]

# Whose strings are judged elsewhere or are not a local command line for certain: a shell's
# ``-c`` (``programs`` analyses it), ssh's remote command, a runner's suffixes (each later word is
# tried as a start, fail closed for deny only), an interpreter's literals (any string of its
# code), apt's ``-o`` values (most are settings, not commands).
_ELSEWHERE = SHELLS | {"eval", "trap", "ssh", "scp", "sftp", "apt", "apt-get", "aptitude"}
_MAX_DEPTH = 4
# runners whose options' values (runners._option_values) are command lines run here, by sh
_LOCAL_RUNNERS = frozenset({"make", "gmake"})
# sed's `e` with no command, and the `e` flag of `s///`, run the pattern space: a line of
# its input (`sed e <<< 'rm x'`, `echo 'rm x' | sed 's/^//e'`), not a command on the line
_SED_BARE_E = re.compile(r"(?:^|[;\n{}]|[0-9$/!])\s*e\s*(?:$|[;\n}])")


def _judged_here(name: str) -> bool:
    if name in _ELSEWHERE or name in _INLINE_CODE or _VERSIONED.fullmatch(name):
        return False
    return name in ("git", "tar") or not is_runner(name)  # (tar: its option values only)


def local_strings(form: tuple[str, ...]) -> list[str]:
    """The command lines a program of ``form`` hands to a shell here, which may run a file
    of this folder (``tar --to-command=./x``, ``rsync -e ./x``, ``git -c
    core.pager=./x log``, ``man -P ./x``, ``GIT_SSH_COMMAND=./x git fetch``): read as a
    runner's strings are (``policy._handed_reads``)."""
    name = base(form[0]) if form else ""
    if name == "ssh":  # -o ProxyCommand=./x runs here (its remote command runs there)
        return _ssh_parse(("scp", *form[1:]))[0]
    if name in ("scp", "sftp"):
        return command_strings(form)
    if not form or not _judged_here(name):
        return []
    if name == "git":  # (core.hooksPath names a directory, judged by git.config_runs)
        return [s for s in command_strings(form) if s not in _hooks_paths(form)]
    return command_strings(form)


def _hooks_paths(form: tuple[str, ...]) -> set[str]:
    values = [form[k + 1] if w in ("-c", "--config") and k + 1 < len(form) else w[2:]
              if w[:2] == "-c" else w[9:] if w.startswith("--config=") else ""
              for k, w in enumerate(form)]
    return {v.partition("=")[2] for v in values
            if v.partition("=")[0].lower() == "core.hookspath"}


def handed_reason(parsed: ParsedCommand, depth: int = 0, text: str = "") -> str | None:
    """Why a command line that a program of ``parsed`` (of the line ``text``) hands to a
    shell cannot be proven (None: each can, or there is none)."""
    forms = [f for words in parsed.segments + parsed.nested for f in command_forms(words)]
    escaped = _escaped(text, forms) if text else []  # ed's `!cmd`, sqlite3's `.shell cmd` ...
    for string in escaped:
        if (reason := _string_reason(string, depth)) is not None:
            return f"a program's shell escape runs {string[:80]!r}: {reason}"
    for form in forms:
        if form == TOO_MANY_FORMS or not form:
            continue
        name = base(form[0])
        if name in _LOCAL_RUNNERS:  # make SHELL=CMD, make --eval (a container's entrypoint
            for string in _option_values(name, form):  # is no local command line: not here)
                if (reason := _string_reason(string, depth)) is not None:
                    return f"{name} runs the command line {string[:80]!r}: {reason}"
        if not _judged_here(name):
            continue
        if name in ("sed", "gsed") and (_sed_runs_input(form) or (
                reads_program_from_stdin(form) and _sed_runs_input(  # its fed script
                    (form[0], text, *_literals([text]))))):
            return ("sed runs lines of its input as commands (an `e` with no command, "
                    "or the `e` flag of s///), which the rules cannot see")
        for string in command_strings(form):
            reason = _string_reason(string, depth)
            if reason is not None:
                return f"{name} runs the command line {string[:80]!r}: {reason}"
    return None


def _sed_runs_input(form: tuple[str, ...]) -> bool:
    scripts = [w.partition("=")[2] if w.startswith("--expression=") else w for w in form[1:]
               if w.startswith("--expression=") or not w.startswith("-")]
    return any(_SED_BARE_E.search(script) or any(
        "e" in m.group(4) for m in _SED_SUB.finditer(script)) for script in scripts)


def _string_reason(string: str, depth: int) -> str | None:
    try:
        inner = parse_command(string)
        reason = analyze_line(string).reason
    except ShellSyntaxError as exc:
        return f"it does not parse ({exc})"
    if reason is None and depth < _MAX_DEPTH:
        reason = handed_reason(inner, depth + 1)
    return reason
