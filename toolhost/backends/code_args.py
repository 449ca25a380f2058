"""Find the argv positions that common interpreters run as code.

``[sh, -c, "echo {{ v }}"]`` lets a value become shell code; ``validate`` refuses a value in
such a position and shows the safe form (the value as a separate argument the code reads as
``$1`` / ``sys.argv[1]``). The scan knows shells, python, perl, ruby, node, php, awk, sed,
osascript, cmd and PowerShell, looks through wrappers (``env``, ``xargs``, ``timeout``,
``nice``, ``sudo``, ``find -exec`` ...) and through absolute paths, and treats the program a
wrapper runs as code too (a value there would choose the program).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from toolhost.backends.code_filters import FILTERS, XMLSTARLET, filter_slots
from toolhost.backends.code_opts import option_code_slots
from toolhost.backends.code_wrappers import is_wrapper, wrapper_targets
from toolhost.backends.make_values import make_slots

__all__ = ["CodeSlot", "Token", "code_slots", "program_name", "run_chain", "run_program",
           "run_programs"]


class Token(NamedTuple):
    """One argv position as the scan sees it. A tuple: a command tool's check builds one per
    element (1,000 tools: thousands), and a frozen dataclass costs ~3x as much to build."""

    key: str  # ".argv[2]"
    text: str  # the template source ("" for a group)
    value: bool  # prints a model value (a placeholder or a group)


@dataclass(frozen=True)
class CodeSlot:
    """An argv place that receives code (``sh -c``'s script, ``python -c``'s program)."""

    key: str
    program: str
    what: str  # "code", "a script file", "the program to run"


_SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "yash", "fish", "busybox", "rbash"}
_SHELL_ARG_OPTS = {"-o", "+o", "-O", "+O", "--rcfile", "--init-file"}
_PYTHON = re.compile(r"^(python|pypy)(\d+(\.\d+)*)?[a-z]?$")
_AWK = {"awk", "gawk", "mawk", "nawk", "busybox-awk"}
_SED = {"sed", "gsed"}
# program -> (flags whose next argument is code, flags that take another argument)
_EVAL = {
    "perl": ({"-e", "-E"}, {"-I", "-M", "-m", "-x", "-i"}),
    "ruby": ({"-e"}, {"-I", "-r", "-C", "-E", "-x"}),
    "node": ({"-e", "--eval", "-p", "--print"}, {"-r", "--require", "--import"}),
    "nodejs": ({"-e", "--eval", "-p", "--print"}, {"-r", "--require", "--import"}),
    "bun": ({"-e", "--eval", "-p", "--print"}, set()),
    # TypeScript runners, Kotlin's -e
    "tsx": ({"-e", "--eval", "-p", "--print"}, {"-r", "--require", "--import", "--tsconfig"}),
    "ts-node": ({"-e", "--eval", "-p", "--print"}, {"-r", "--require", "-P", "--project",
                                                    "-C", "--compiler", "-O"}),
    "kotlin": ({"-e", "-expression"}, {"-cp", "-classpath", "-howtorun"}),
    "deno": ({"eval"}, set()),
    "php": ({"-r", "-B", "-R", "-E"}, {"-c", "-d", "-z"}),
    "osascript": ({"-e"}, {"-l", "-s"}),
    "lua": ({"-e"}, {"-l"}),
    "luajit": ({"-e"}, {"-l"}),
    "rscript": ({"-e"}, set()),
    "tclsh": (set(), set()), "wish": (set(), set()),
    "raku": ({"-e"}, {"-I", "-M"}), "perl6": ({"-e"}, {"-I", "-M"}),
    "julia": ({"-e", "-E", "--eval", "--print"}, {"-L", "--load", "-J", "-t", "-p"}),
    "elixir": ({"-e", "--eval"}, {"-r", "--require", "-pa", "-pz"}),
    "erl": ({"-eval", "-s", "-run"}, {"-pa", "-pz", "-sname", "-name", "-setcookie"}),
    "guile": ({"-c"}, {"-l", "-L", "-e", "-x"}),
    "racket": ({"-e", "--eval"}, {"-l", "-t", "-r", "-f", "--load", "--require"}),
    "sbcl": ({"--eval"}, {"--load", "--script", "--core"}),
    "clisp": ({"-x"}, {"-i", "-M", "-E"}),
    "gnuplot": ({"-e"}, set()), "r": ({"-e"}, set()), "octave": ({"--eval"}, set()),
    "expect": ({"-c"}, {"-f"}), "groovy": ({"-e"}, set()), "scala": ({"-e"}, set()),
    "dc": ({"-e", "--expression"}, {"-f", "--file"}),
    "su": ({"-c", "--command"}, {"-s", "--shell", "-g", "-G"}),
    # a file operand that is code: the crontab it installs, m4's input
    # (syscmd runs commands), the playbook; ansible's extra vars are templated (lookup pipe)
    "crontab": (set(), {"-u"}),
    "m4": (set(), {"-D", "--define", "-U", "--undefine", "-I", "--include", "-o",
                   "--error-output", "-F", "--freeze-state", "-R", "--reload-state", "-l",
                   "--arglength", "-L", "--nesting-limit", "--debugfile"}),
    "ansible-playbook": (set(), {"-e", "--extra-vars",
        "-i", "--inventory", "-l", "--limit", "-u", "--user", "-t", "--tags", "--skip-tags",
        "-f", "--forks", "-c", "--connection", "--vault-id", "--vault-password-file", "-M",
        "--module-path", "-T", "--timeout", "--private-key", "--key-file", "-b", "--become",
        "--become-user", "--become-method", "--start-at-task"}),
}
_SSH_ARG_OPTS = set("bcDEeFIiJLlmOopQRSWw")
# TeX joins its operands into its first line of input: `doc.tex \\foo` inputs
# the file and then runs `\\foo`, and an operand starting with '\\' is TeX code
# (`\\input{/etc/passwd}`; `\\write18{CMD}` with -shell-escape): each operand is code
_TEX = frozenset({"tex", "latex", "pdflatex", "xelatex", "lualatex", "luatex", "pdftex",
                  "xetex", "etex", "context"})
_TEX_ARG = frozenset({"-output-directory", "-jobname", "-interaction", "-fmt",
                      "-aux-directory", "-output-format", "-cnf-line", "-synctex"})


def _name(text: str) -> str:
    base = text.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return base[:-4] if base.endswith(".exe") else base


def run_program(tokens: Sequence[Token]) -> int:
    """The index of the program that really runs, through wrappers (``env``, ``nice``,
    ``timeout 5``, ``sudo -u x``, ...): it gets the command's stdin. -1 when a value or
    ``env -S`` decides it."""
    found = run_programs(tokens)
    return found[0] if found else -1


def run_programs(tokens: Sequence[Token]) -> list[int]:
    """Every index the program that really runs may be at (a wrapper's option the table
    does not know may take an argument or not: both readings); empty when a value or a
    shell command line (``env -S``, ``sg``) decides it."""
    return _walk(tokens)[0]


def run_chain(tokens: Sequence[Token]) -> set[int]:
    """Every index on the way to the program that runs: the wrappers and the program."""
    return _walk(tokens)[1]


def _walk(tokens: Sequence[Token]) -> tuple[list[int], set[int]]:
    found: list[int] = []
    todo: list[int] = [0]
    seen: set[int] = set()
    while todo:
        i = todo.pop(0)
        if i >= len(tokens) or tokens[i].value:
            return [], seen
        seen.add(i)
        name = _name(tokens[i].text)
        targets = wrapper_targets(tokens, i, name) if is_wrapper(name) else None
        if targets is None or (not targets.starts and not targets.slots
                               and i + 1 >= len(tokens)):
            found.append(i)  # a program, or a wrapper run alone (`env`, `xargs`)
        elif not targets.starts or targets.slots:
            return [], seen
        else:
            todo.extend(s for s in targets.starts if s not in todo and s not in seen)
    return sorted(set(found)), seen


def program_name(text: str) -> str:
    """A program's name as the checks compare it: its base name, lower case, no ``.exe``."""
    return _name(text)


def code_slots(tokens: Sequence[Token]) -> list[CodeSlot]:
    """Every position of ``tokens`` (argv[0] first) that runs as code or names the program."""
    slots: list[CodeSlot] = []
    # a work list, not recursion: a config of thousands of wrappers (`nice nice ... sh`) would
    # pass Python's recursion limit; `seen`: two readings of a wrapper may meet again
    todo, seen = [0], set()
    while todo:
        at = todo.pop()
        if at not in seen:
            seen.add(at)
            _scan(tokens, at, slots, todo)
    return list(dict.fromkeys(slots))  # two readings of a wrapper may find one slot twice


def _scan(tokens: Sequence[Token], i: int, slots: list[CodeSlot], todo: list[int]) -> None:
    """The slots of the program at ``i``; the programs it runs go on ``todo``."""
    if i >= len(tokens):
        return
    head = tokens[i]
    if head.value:
        slots.append(CodeSlot(head.key, "a wrapper", "the program to run"))
        return
    name = _name(head.text)
    rest = range(i + 1, len(tokens))
    # options of ordinary programs that run a command (git -c core.pager=, rsync -e, ...)
    slots.extend(CodeSlot(*slot) for slot in option_code_slots(tokens, i, name))
    slots.extend(CodeSlot(*slot) for slot in make_slots(tokens, i, name))  # make X={{ v }}
    # jq's filter, mlr put's expression, xmlstarlet's XPath
    if name in FILTERS or name == "mlr" or name in XMLSTARLET:
        slots.extend(CodeSlot(*slot) for slot in filter_slots(tokens, i, name))
        return
    targets = wrapper_targets(tokens, i, name) if is_wrapper(name) else None
    if targets is not None:  # env, timeout 5, sudo -u x, docker run IMAGE, uv run ...
        slots.extend(CodeSlot(key, name, what) for key, what in targets.slots)
        todo.extend(targets.starts)
        return
    if name == "find":
        for j in rest:
            if tokens[j].text in ("-exec", "-execdir", "-ok", "-okdir"):
                todo.append(j + 1)
        return
    if name in ("cmd", "pwsh", "powershell", "watch"):
        start = None
        for j in rest:
            text = tokens[j].text.lower()
            if name == "watch" and not text.startswith("-"):
                start = j
                break
            if text in ("/c", "/k", "-c", "-command", "-encodedcommand", "-e", "-ec", "/r"):
                start = j + 1
                break
        for t in tokens[start:] if start is not None else ():
            if t.value:
                slots.append(CodeSlot(t.key, name, "code"))
        return
    if name == "ssh":
        j = i + 1
        while j < len(tokens) and tokens[j].text.startswith("-") and not tokens[j].value:
            flag = tokens[j].text
            j += 2 if len(flag) == 2 and flag[1] in _SSH_ARG_OPTS else 1
        slots.extend(CodeSlot(t.key, "ssh (remote shell)", "code") for t in tokens[j + 1:]
                     if t.value)
        return
    if name in _SHELLS:
        _interpreter(tokens, i, name, lambda f: not f.startswith("--") and "c" in f[1:],
                     _SHELL_ARG_OPTS, slots)
    elif _PYTHON.match(name):
        _interpreter(tokens, i, name, lambda f: f in ("-c", "-m"), {"-W", "-X", "-Q"}, slots)
    elif name in _TEX:
        for j in rest:
            before, glued = tokens[j - 1].text, tokens[j].text.partition("=")[0]
            if tokens[j].value and not (_tex_arg(before) or ("{" not in glued
                                        and _tex_arg(glued))):
                slots.append(CodeSlot(tokens[j].key, name, "code"))
    elif name in _EVAL:
        evals, with_arg = _EVAL[name]
        if name == "perl":
            _interpreter(tokens, i, name, lambda f: not f.startswith("--")
                         and bool(set(f[1:]) & {"e", "E"}), with_arg, slots)
        else:
            _interpreter(tokens, i, name, lambda f: f in evals, with_arg, slots)
    elif name in _AWK:
        _program_operand(tokens, i, name, {"-f", "--file"}, {"-e", "--source"},
                         {"-F", "-v", "--assign", "--field-separator"}, slots)
    elif name in _SED:
        _program_operand(tokens, i, name, {"-f", "--file"}, {"-e", "--expression"},
                         {"-l", "--line-length"}, slots)


def _tex_arg(option: str) -> bool:
    """Whether ``option`` is one of TeX's that take an argument (``-jobname``, ``--jobname``)."""
    return option.startswith("-") and "-" + option.lstrip("-") in _TEX_ARG


def _interpreter(tokens: Sequence[Token], i: int, name: str, is_eval: object,
                 with_arg: set[str], slots: list[CodeSlot]) -> None:
    assert callable(is_eval)
    j = i + 1
    while j < len(tokens):
        token = tokens[j]
        if token.value and token.text.startswith("-"):
            slots.append(CodeSlot(token.key, name, "code"))  # glued to an option (-e{{ x }})
            return
        if token.value:
            break  # a value where options are read: the script operand, checked below
        text = token.text
        if text == "--" or text == "-":
            j += 1
            break
        if not text.startswith("-") and not (name in _SHELLS and text.startswith("+")):
            if name == "deno" and text == "eval":
                _flag(tokens, j + 1, name, slots)
                return
            break
        if is_eval(text):
            _flag(tokens, j + 1, name, slots)
            return
        j += 2 if text in with_arg else 1
    if j < len(tokens) and tokens[j].value:
        slots.append(CodeSlot(tokens[j].key, name, "a script file"))


def _flag(tokens: Sequence[Token], j: int, name: str, slots: list[CodeSlot]) -> None:
    if j < len(tokens) and tokens[j].value:
        slots.append(CodeSlot(tokens[j].key, name, "code"))


def _program_operand(tokens: Sequence[Token], i: int, name: str, files: set[str],
                     evals: set[str], with_arg: set[str], slots: list[CodeSlot]) -> None:
    j, has_program = i + 1, False
    while j < len(tokens):
        token, text = tokens[j], tokens[j].text
        flag = text.split("=", 1)[0]
        if token.value and text.startswith("-"):
            if flag in evals or (name in _SED and text.startswith("-e")):
                slots.append(CodeSlot(token.key, name, "code"))
                return
            j += 1
            continue
        if token.value or text == "-" or not text.startswith("-"):
            break
        if text == "--":
            j += 1
            break
        if flag in evals or flag in files:
            has_program = True
            if "=" in text:
                j += 1
            else:
                if flag in evals:
                    _flag(tokens, j + 1, name, slots)
                j += 2
            continue
        if flag.startswith("-e") and len(flag) > 2 and name in _SED:
            has_program = True  # -e'script' glued
        j += 2 if text in with_arg else 1
    if not has_program and j < len(tokens) and tokens[j].value:
        slots.append(CodeSlot(tokens[j].key, name, "code"))
