"""Why what a simple command runs is not on its line, for ``bash.programs``: a git option or
``git config`` key naming a command or a file of commands (``--config-env``, ``-c
include.path``, ``core.hooksPath``, ``--template``), a crontab read from the input, a script
or a sourced file that is the shell's input (``/dev/stdin``, ``<(...)``) or found by an option
(``source -p PATH``)."""

from __future__ import annotations

import re

from toolhost.permissions.git.commands import git_subcommand
from toolhost.permissions.shell.parse import Word

__all__ = ["config_env", "config_sets_file", "crontab_reads_input", "script_reason",
           "sourced_reason"]


# git configuration keys whose value never names a program (git --config-env=KEY=VAR)
_SAFE_CONFIG = re.compile(r"(?:http|user|author|committer|color|advice|init|i18n|log|"
                          r"safe|column)\.[\w.-]+|http\..+\.extraheader", re.IGNORECASE)


def config_env(args: tuple[str, ...]) -> str | None:
    """The first ``git --config-env KEY=VAR`` among git's own options whose key may name a
    command (``alias.p``, ``core.pager``, ``core.sshCommand`` ...): its value is not seen."""
    for k, word in enumerate(args[:64]):
        if word == "--config-env" and k + 1 < len(args):
            spec = args[k + 1]
        elif word.startswith("--config-env="):
            spec = word[13:]
        elif word.startswith("--exec-") and "=" in word:
            return "--exec-path"  # git --exec-path=DIR runs its subcommands from DIR
        elif word.startswith("-c") and (spec := word[2:] or (
                args[k + 1] if word == "-c" and k + 1 < len(args) else "")):
            key, _, value = spec.partition("=")
            if _INCLUDE.fullmatch(key):
                return key  # -c include.path=FILE: its aliases, pager...
            if key.lower() == "core.hookspath" and value not in ("", "/dev/null"):
                return key  # -c core.hooksPath=DIR: this command runs DIR's hooks (review18)
            continue
        else:
            continue
        key = spec.partition("=")[0]
        if not _SAFE_CONFIG.fullmatch(key):
            return key
    return None


_INCLUDE = re.compile(r"include\.path|includeif\..+\.path", re.IGNORECASE)
_READS_CONFIG = frozenset({"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list",
                           "-l", "--unset", "--unset-all", "--remove-section", "get", "list",
                           "unset", "remove-section", "--show-origin", "--name-only"})


def config_sets_file(args: tuple[str, ...]) -> str | None:
    """``git config [--global] include.path FILE`` (``includeIf.*.path``,
    ``core.hooksPath DIR``): later git commands read that file's aliases and pager, or run
    that directory's hooks, none of which is on the line (``git -c include.path``
    is refused the same way)."""
    found = git_subcommand(args)
    if found is not None and found[0] in ("clone", "init", "init-db") and any(
            w.startswith("--te") for w in args[found[1] + 1:found[1] + 65]):
        return "--template"  # git init --template=DIR copies DIR's hooks into .git/hooks
    if found is None or found[0] != "config":
        return None
    rest = args[found[1] + 1:found[1] + 65]
    if any(w in _READS_CONFIG for w in rest):
        return None
    return next((w for w in rest if _INCLUDE.fullmatch(w) or w.lower() == "core.hookspath"),
                None)


def crontab_reads_input(args: tuple[str, ...]) -> bool:
    """``crontab``, ``crontab -``, ``crontab -u root -``: the job table comes from stdin (a
    here-string, a pipe); ``crontab -l``/``-r``/``-e`` install nothing, ``crontab FILE`` installs
    a file (as ``bash script.sh`` runs one: the program)."""
    k = 0
    while k < len(args):
        word = args[k]
        if word == "-":
            return True
        if not word.startswith("-") or word == "--":
            return word == "--" and args[k + 1:k + 2] in ((), ("-",))
        if word.startswith("-u"):
            k += 1 if len(word) > 2 else 2  # -u USER, -uUSER
            continue
        if any(c in word for c in "lreVT"):
            return False
        k += 1
    return True


_INPUT_FILES = re.compile(r"/dev/(stdin|fd/.*|tcp/.*|udp/.*)|/proc/(self|thread-self|\d+)/fd/.*")


def sourced_reason(name: str, args: tuple[Word, ...]) -> str | None:
    """Why the file ``source``/``.`` reads cannot be named: an option before it (bash 5.3's
    ``-p PATH`` searches a path the line gives; ``--`` ends the options), or its input."""
    if args and args[0].value == "--":
        args = args[1:]
    if not args:
        return None
    if args[0].value.startswith("-") and args[0].value != "-":
        return (f"{name} {args[0].raw!r} reads a file found by an option, not one named as "
                "written")
    return script_reason(name, args[0])


def script_reason(name: str, script: Word) -> str | None:
    """Why the script a shell (or ``source``) runs is its input, not a file: ``/dev/stdin``,
    ``/dev/fd/0``, a process substitution ``<(echo rm x)``, a name from an expansion."""
    if not script.plain or _INPUT_FILES.fullmatch(script.value):
        return f"{name} runs the commands of {script.raw!r}: its input, or not a file as written"
    return None
