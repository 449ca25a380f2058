"""``make`` running a Makefile: its recipe lines are judged as Bash commands.

``make``, ``make -C dir``, ``make -f file``, ``gmake`` have make as their program: what the
recipes run is not on the line. An earlier call (or the same line) may have written the
Makefile (``printf 'x:\\n\\trm -rf ~/x\\n' > Makefile``, then ``make x``). The Makefile is
read when the call is decided (bounded, never blocking: ``later.makefile``), the rules the
goals reach (and every pattern, suffix and ``.DEFAULT`` rule) give their recipe lines, each
expanded as make would (``later.make_expand``) and judged as a Bash command: a deny or ask Bash rule
meeting one, or a line whose programs cannot be proven, makes the make not provable. So does
anything the text alone does not say (an ``include``, ``$(shell ...)``, a variable from the
environment, a Makefile that cannot be read or that the line may write first). Only where a
deny or ask Bash rule exists: with none, nothing could be dodged.
"""

from __future__ import annotations

import os
import re
from contextvars import ContextVar

from toolhost.permissions.bash.budget import line_fact, scan_line
from toolhost.permissions.bash.forms import command_forms
from toolhost.permissions.bash.shell_builtins import COMMAND_VARS, DANGEROUS_VARS
from toolhost.permissions.later.judge import Judge, Unprovable, first_unproven
from toolhost.permissions.later.make_expand import BUILTIN
from toolhost.permissions.later.make_opts import make_options
from toolhost.permissions.later.make_recipes import recipes
from toolhost.permissions.later.makefile import (
    GIT_ENV,
    RUNS,
    SPECIAL,
    Unknown,
    parsed_makefiles,
    read_text,
)
from toolhost.permissions.later.where import MOVES
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["ALIKES", "MAKES", "make_reason"]

MAKES = frozenset({"make", "gmake", "gnumake", "remake"})  # (GNU make, read as such)
# other makes read a Makefile in their own dialect (BSD, POSIX, Plan 9...): not read here
ALIKES = frozenset({"bmake", "pmake", "bsdmake", "fmake", "pdpmake", "kmk", "dmake", "nmake",
                    "makepp", "colormake", "smake", "mk"})
_NAMES = ("GNUmakefile", "makefile", "Makefile")
_DEPTH: ContextVar[int] = ContextVar("make_depth", default=0)
# what a make's recipes pass to a make they run: its line's assignments and -e (MAKEFLAGS),
# and the names its line may put in the environment (make C=rm: a sub-make's $(C) is rm)
_INHERITED: ContextVar[tuple[dict[str, str], bool, frozenset[str] | None]] = ContextVar(
    "make_inherited", default=({}, False, frozenset()))
_MAX_DEPTH = 3
_ENV_CHANGERS = frozenset({"export", "source", ".", "set", "eval", "declare", "typeset",
                           "readonly", "local"})
_ASSIGNED = re.compile(r"(?<![\w$])([A-Za-z_][A-Za-z0-9_]*)\+?=")
_MAKE_ENV = re.compile(r"\b(?:MAKEFILES|MAKEFLAGS|GNUMAKEFLAGS|MFLAGS|MAKELEVEL)\b"
                       r"|(?:^|\s)\.[A-Za-z_]+=")  # (env .EXTRA_PREREQS=x make: make reads it)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SAFE_VALUE = re.compile(r"[A-Za-z0-9_./=+,:@%\s-]*")
# a here-string in single quotes, or a here-document whose delimiter is quoted (no expansion)
_LITERAL_DOCUMENT = re.compile(r"<<<\s*'([^']*)'(?=[\s;&|)]|$)"
                               r"|<<(-?)\s*['\"](\w+)['\"][^\n]*\n(.*?)\n\3(?:\n|$)", re.S)


def make_reason(parsed: ParsedCommand, command: str, cwd: str, judge: Judge,
                unprovable: Unprovable) -> str | None:
    """Why a make the line runs cannot be proven (None: it runs none, or every recipe line
    it may run meets no deny or ask Bash rule and is proven by ``unprovable``)."""
    if not judge([None]):  # no deny or ask Bash rule: nothing to dodge
        return None
    segments = parsed.words + parsed.nested_words
    for words in segments:
        names = {w.value.rsplit("/", 1)[-1] for w in words}
        if names & ALIKES and any(f and f[0].rsplit("/", 1)[-1] in ALIKES
                                  for f in command_forms(tuple(w.value for w in words))):
            return "it runs a make whose Makefile is not read here"
        if not names & MAKES:
            continue
        # make as the program, past wrappers (sudo, env, xargs, find -exec, busybox)
        values = tuple(w.value for w in words)
        forms = [f[1:] for f in command_forms(values) if f and f[0].rsplit("/", 1)[-1]
                 in MAKES and f == values[len(values) - len(f):]]  # (its words, as written)
        for args in dict.fromkeys(forms):
            try:
                why = _one_make(words, args, segments, parsed, command, cwd, judge,
                                unprovable)
            except Unknown as exc:
                why = str(exc)
            if why is not None:
                return f"it runs make, and {why}"
    return None


def _one_make(words: tuple[Word, ...], args: tuple[str, ...], segments: list[tuple[Word, ...]],
              parsed: ParsedCommand, command: str, cwd: str, judge: Judge,
              unprovable: Unprovable) -> str | None:
    if not all(w.plain for w in words):
        return "one of its words is not known before it runs"
    if os.environ.get("MAKEFILES") or line_fact(parsed, "make_env", lambda: bool(
            _MAKE_ENV.search(command) or any(_MAKE_ENV.search(w.value) for s in segments
                                             for w in s))):  # (MAKE''FILES=x)
        return "the line names a variable that changes what make reads"
    where, files, goals, raw_given, env_wins, evals = make_options(list(args))
    if evals:
        return "it evaluates make text given on the line"
    outer_given, outer_wins, outer_env = _INHERITED.get()
    env_set = line_fact(parsed, "make_env_names", lambda: _env_names(segments, command))
    env_set = None if env_set is None or outer_env is None else env_set | outer_env
    given = {**outer_given, **_given(raw_given, env_set, command)}
    env_wins = env_wins or outer_wins
    moved = line_fact(parsed, "moves", lambda: any(w.value in MOVES for s in segments
                                                   for w in s))
    if moved and not os.path.isabs(where):
        return "it runs after a cd: which Makefile it reads is not known"
    where = os.path.normpath(os.path.join(cwd, os.path.expanduser(where)))
    # a Makefile read from its input is judged where what feeds it is (command_strings:
    # a here-document, a here-string; a file or a pipe is not provable there)
    fed = [f for f in files if f in ("-", "/dev/stdin")]
    files = [f for f in files if f not in fed]
    texts: list[str] = []  # (in the order make reads them)
    if fed:  # read from its input: a literal here-string or here-document is read as the
        # Makefile; what a pipe, a file or an expansion feeds it is not on the line
        documents = _LITERAL_DOCUMENT.findall(command)
        if len(documents) != 1 or "|" in parsed.fed or "<" in parsed.fed:
            return "it reads a Makefile from its input, which is not a literal on the line"
        single, strip, _end, body = documents[0]
        if strip:  # <<-: bash takes the leading tabs off each line (recipes' too)
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        texts.append(single or body)
    if any(f.startswith(("/dev/", "/proc/")) for f in files):  # (never read here)
        raise Unknown("it reads a Makefile from a device or a process's file")
    if not files:
        files = [next((n for n in _NAMES if _there(os.path.join(where, n))), "")]
    for name in files:
        if name == "":
            break  # no Makefile: make stops (its built-in rules take only names below)
        path = os.path.join(where, os.path.expanduser(name))
        base = os.path.basename(path).lower()
        scan_line(parsed)  # (for each Makefile of each make)
        if any(base in w.value.lower() for s in segments if s is not words for w in s) or any(
                base in os.path.basename(f).lower() for _, out, _ in parsed.writes for f in out):
            return f"the line may write {name!r} before make reads it"
        text, there = read_text(path)
        if text is None:
            if there:
                return f"{name!r} cannot be read as a Makefile here"
            continue
        texts.append(text)
    mk = parsed_makefiles(tuple(texts))
    why = _builtin_values(given, words, where, judge, unprovable)
    if why is not None:
        return why
    lines = recipes(mk, goals, given, where, env_set, env_wins, [f for f in files if f])
    depth = _DEPTH.get()
    if depth >= _MAX_DEPTH and lines:
        return "it runs makes too deep to read"
    token = _DEPTH.set(depth + 1)
    passed = _INHERITED.set((given, env_wins, env_set))
    try:
        return first_unproven(((f"its recipe line {line[:80]!r}", line) for line in lines),
                              where, judge, unprovable)
    finally:
        _INHERITED.reset(passed)
        _DEPTH.reset(token)


def _given(raw: dict[str, str], env_set: frozenset[str] | None,
           command: str) -> dict[str, str]:
    """The values of make's command-line assignments (``X=v``, ``X:=v``, ``X+=v``, ``X?=v``):
    they override the Makefile's. ``X!=cmd`` runs cmd when make starts; ``X:=$(shell ...)``
    too; a special variable (``SHELL``, ``.RECIPEPREFIX``, ``.DEFAULT_GOAL``...) changes what
    make runs: not provable."""
    given: dict[str, str] = {}
    for key, value in raw.items():
        name, op = key.rstrip(":+?!"), key[len(key.rstrip(":+?!")):]
        if op == "!":
            raise Unknown(f"{name}!= on its line runs a shell command when make starts")
        if not _NAME.fullmatch(name) or name in SPECIAL or DANGEROUS_VARS.fullmatch(
                name) or name in COMMAND_VARS or GIT_ENV.match(name):
            raise Unknown(f"it sets make's variable {name!r} on its line")
        if RUNS.search(value):
            raise Unknown(f"the value it gives {name} runs something when make reads it")
        if op in ("+", "?"):  # (make adds to, or keeps, the environment's value)
            if env_set is None or _ASSIGNED.findall(command).count(name) > 1:
                raise Unknown(f"{name}{op}= on its line meets a value the line may set")
            old = os.environ.get(name, "")
            value = (f"{old} {value}".strip() if op == "+" else old or value)
        given[name] = value
    return given


def _builtin_values(given: dict[str, str], words: tuple[Word, ...], where: str,
                    judge: Judge, unprovable: Unprovable) -> str | None:
    """A value the line gives a variable of make's built-in rules (``make foo CC=x``,
    ``CFLAGS=x make``), which run where no rule of the Makefile makes a goal (not read
    here): a flag's value must be plain text, a program's a command the rules allow."""
    values = dict(given)
    for word in words:
        name, eq, value = word.value.partition("=")
        if eq and _NAME.fullmatch(name.rstrip("+")):
            values[name.rstrip("+")] = value
    for name, value in values.items():
        if name not in BUILTIN:
            continue
        if not _SAFE_VALUE.fullmatch(value):
            return f"it gives {name} (which make's built-in rules splice into a recipe) {value!r}"
        if not name.endswith(("FLAGS", "LIBS", "LIBES", "ARCH", "OPTION")) and value.strip() and (
                judge([value]) or unprovable(value, where, judge) is not None):
            return f"it gives {name} (a program make's built-in rules run) {value!r}"
    return None


def _env_names(segments: list[tuple[Word, ...]], command: str) -> frozenset[str] | None:
    """The names the line may put in make's environment (None: any name)."""
    if any(s and s[0].value in _ENV_CHANGERS for s in segments) or any(
            w.value == "env" for s in segments for w in s):
        return None
    return frozenset(_ASSIGNED.findall(command))


def _there(path: str) -> bool:
    """Whether make would read ``path`` (any file but a directory: a FIFO too)."""
    return os.path.exists(path) and not os.path.isdir(path)
