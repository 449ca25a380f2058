"""make's own options, read as make reads them (``-sC dir``, ``-fFILE``, ``--file=FILE``,
``-j4``): where it runs, the Makefiles it reads, its goals (``later.make``, and
``command_strings``, which judges a Makefile read from the input a line feeds it)."""

from __future__ import annotations

import os
import re

__all__ = ["make_options", "reads_input"]

# options taking the next word (GNU make 4)
_WITH_ARG = frozenset({"-C", "-f", "-I", "-o", "-W", "-E", "--directory", "--file",
                       "--makefile", "--include-dir", "--old-file", "--assume-old",
                       "--what-if", "--new-file", "--assume-new", "--eval"})
STDIN = ("-", "/dev/stdin")
# every long option of GNU make 4: getopt takes any unambiguous prefix (``--fil=x`` is
# ``--file=x``, ``--eva=...`` is ``--eval=...``)
_LONG = ("--always-make", "--assume-new", "--assume-old", "--check-symlink-times", "--debug",
         "--directory", "--dry-run", "--environment-overrides", "--eval", "--file", "--help",
         "--ignore-errors", "--include-dir", "--jobs", "--just-print", "--keep-going",
         "--load-average", "--makefile", "--max-load", "--new-file", "--no-builtin-rules",
         "--no-builtin-variables", "--no-keep-going", "--no-print-directory", "--no-silent",
         "--old-file", "--output-sync", "--print-data-base", "--print-directory", "--question",
         "--quiet", "--recon", "--silent", "--stop", "--touch", "--trace", "--version",
         "--warn-undefined-variables", "--what-if", "--shuffle")
# NAME=v, NAME:=v, NAME::=v, NAME+=v, NAME?=v, NAME!=v (make reads each on its line)
_ASSIGNMENT = re.compile(r"([^\s=:+?!]*)(::?:?=|\+=|\?=|!=|=)(.*)", re.S)


def _long(arg: str) -> str:
    """``arg``'s option name as make reads it (an unambiguous prefix: the option it names)."""
    name, eq, value = arg.partition("=")
    if name in _LONG:
        return arg
    hits = [o for o in _LONG if o.startswith(name)]
    return hits[0] + eq + value if len(hits) == 1 else arg


def reads_input(args: list[str]) -> bool:
    """Whether make, given ``args``, reads a Makefile from its input (``-f -``)."""
    return any(f in STDIN for f in make_options(args)[1])


def make_options(args: list[str]) -> tuple[str, list[str], list[str], dict[str, str], bool,
                                          bool]:
    """(the directory, the -f files, the goals, the X=v assignments, -e, --eval) of the
    words after make's name (``-sC dir``, ``-fFILE``, ``--file=FILE``, ``-j4`` read as make
    reads them)."""
    where, env_wins, evals = ".", False, False
    files: list[str] = []
    goals: list[str] = []
    given: dict[str, str] = {}
    it = iter(args)
    for arg in it:
        if arg.startswith("--") and len(arg) > 2:
            arg = _long(arg)
        if arg == "--":
            goals += list(it)
            break
        long, eq, value = arg.partition("=")
        if arg in _WITH_ARG or (long in _WITH_ARG and long.startswith("--") and eq):
            value = value if eq else next(it, "")
            long = arg if not eq else long
            if long in ("-C", "--directory"):
                where = os.path.join(where, value)
            elif long in ("-f", "--file", "--makefile"):
                files.append(value)
            elif long in ("-E", "--eval"):
                evals = True
        elif arg.startswith("-") and not arg.startswith("--"):
            for k, flag in enumerate(arg[1:], 1):  # -sC dir, -fMakefile, -j4
                if flag in "CfIoWE":
                    rest = arg[k + 1:] or next(it, "")
                    if flag == "C":
                        where = os.path.join(where, rest)
                    elif flag == "f":
                        files.append(rest)
                    elif flag == "E":
                        evals = True
                    break
                if flag == "e":
                    env_wins = True
                if flag in "jlO":
                    break  # (their number, attached)
        elif arg.startswith("--"):
            env_wins = env_wins or arg == "--environment-overrides"
        elif "=" in arg and _ASSIGNMENT.fullmatch(arg):
            found = _ASSIGNMENT.fullmatch(arg)
            assert found is not None
            # (the name with its operator's first letters: later.make reads X+=, X?=, X!=)
            given[found.group(1) + found.group(2)[:-1]] = found.group(3)
        else:
            goals.append(arg)
    return where, files, goals, given, env_wins, evals
