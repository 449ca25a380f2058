"""make's own options, read as make reads them (``-sC dir``, ``-fFILE``, ``--file=FILE``,
``-j4``): where it runs, the Makefiles it reads, its goals (round 21: ``latermake``, and
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
        elif "=" in arg and re.fullmatch(r"[^\s=:]+:{0,3}=.*", arg, re.S):
            name, _, value = arg.partition("=")
            given[name.rstrip(":")] = value
        else:
            goals.append(arg)
    return where, files, goals, given, env_wins, evals
