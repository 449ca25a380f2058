"""Which programs a simple command runs, proven from its words, or why that cannot be proven.

An allow rule may only let through a command whose every program is known. ``analyze`` reads
one simple command the way bash would start it: reserved words (``if``, ``then``, ``!``, ...)
are skipped, leading ``NAME=value`` assignments are a step of their own, and a wrapper
(``sudo``, ``env``, ``timeout``, ...) is a step whose options are read with that wrapper's own
grammar, so the command it runs is found exactly (``sudo -u root rm`` runs ``rm``, ``timeout 5
rm`` too). Every word up to the program must be a plain literal: an expansion there could split
into other words or name another program. Anything else (an unknown wrapper option, ``eval``,
``coproc``, an assignment to ``PATH``, a program word with ``$``, quotes of the ANSI-C kind, a
glob or a brace) makes the command *not provable*, with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from toolhost.permissions.bash.not_on_line import (
    config_env,
    config_sets_file,
    crontab_reads_input,
    script_reason,
    sourced_reason,
)
from toolhost.permissions.bash.shell_builtins import (
    COMMAND_VARS,
    DANGEROUS_VARS,
    builtin_reason,
    line_reason,
)
from toolhost.permissions.bash.wrappers import (
    OPAQUE_WRAPPERS,
    WRAPPERS,
    starts_shell,
    time_end,
    wrapper_end,
)
from toolhost.permissions.git.commands import unknown_git_command
from toolhost.permissions.shell.parse import ParsedCommand, ShellSyntaxError, Word, parse_command

__all__ = ["SHELLS", "Analysis", "Step", "analyze", "analyze_command"]

# Reserved words that may start a simple command and run nothing themselves.
_RESERVED = frozenset({"!", "{", "}", "if", "then", "else", "elif", "fi", "do", "done",
                       "while", "until", "esac"})
# A segment starting with one of these lists words, it runs none (``for f in a b``).
_LISTS = frozenset({"for", "select"})
# Programs that define or redirect what a later word means, or run a string as code.
_REFUSED = {
    "eval": "eval runs a string as a command",
    "coproc": "coproc",
    "function": "a function definition",
    "case": "case",
    "alias": "an alias definition", "unalias": "unalias",
    "enable": "enable (turns builtins on and off)", "hash": "hash (maps names to programs)",
    "trap": "trap runs a string as a command",
}
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=")
_DANGEROUS_VARS = DANGEROUS_VARS
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "yash",
                    "posh", "lksh", "oksh", "pdksh", "ksh93", "bosh"})
# Shells whose language is not sh's: a command string or their input is not read here, so only
# a script file (``fish build.fish``: the shell is the program) can be proven.
_OTHER_SHELLS = frozenset({"fish", "csh", "tcsh", "pwsh", "powershell", "nu", "elvish",
                           "xonsh", "rc", "es"})
@dataclass(frozen=True)
class Step:
    """One command an allow rule must cover: a wrapper with everything after it, or the
    program with its arguments. ``offset`` is where the next step starts in ``words``."""

    words: tuple[str, ...]
    kind: str  # "assign", "assign_command", "wrapper", "transparent" (a wrapper rules may
    # skip), "program", "deep" (a wrapper nested too deep to look into: no allow rule covers it)
    offset: int = 0
    inner: int = 0  # how many of the following steps are the command this one runs

    @property
    def text(self) -> str:
        return " ".join(self.words)


@dataclass(frozen=True)
class Analysis:
    """One simple command: its steps, or why no program can be proven (``reason``)."""

    steps: tuple[Step, ...] = ()
    reason: str | None = None


def _basename(word: str) -> str:
    return word.rsplit("/", 1)[-1]


# wrappers, shells and find actions looked into, one inside another
_MAX_DEPTH = 16


def analyze(words: tuple[Word, ...], depth: int = 0, *, wrapped: bool = False,
            appended: bool = False) -> Analysis:
    """The steps of one simple command, or the reason it cannot be proven. ``wrapped``: a
    program runs it (``time`` is then a program, not bash's keyword); ``appended``: ``xargs``
    adds the words it reads to it, so a wrapper there always runs a command."""
    steps: list[Step] = []
    i = 0
    values = tuple(w.value for w in words)
    while i < len(words) and words[i].value in _RESERVED and words[i].raw == words[i].value:
        i += 1
    if i == len(words):
        return Analysis()
    first = words[i]
    if first.arith:  # ((...)) runs no program; its substitutions are nested commands
        return Analysis(reason="words after an arithmetic command") if i + 1 < len(
            words) else Analysis()
    if first.value in _LISTS and first.raw == first.value:
        return Analysis()  # "for x in a b": the words are data; substitutions are nested
    start = i
    runs = False  # a variable whose value a program runs: a step an allow rule must name
    while i < len(words) and (m := _ASSIGNMENT.match(words[i].raw)) is not None:
        if m.group(2) is not None or _DANGEROUS_VARS.fullmatch(m.group(1)):
            return Analysis(reason=f"the assignment {words[i].raw!r} changes what a name runs")
        runs = runs or m.group(1) in COMMAND_VARS
        i += 1
    if i == len(words):  # only assignments: under xargs (``xargs env A=1``) they lead a command
        return Analysis(reason="xargs appends a command it reads from its input") if (
            appended) else Analysis()
    if i > start:
        steps.append(Step(values[start:], "assign_command" if runs else "assign", i - start))
    program = words[i]
    if not program.plain:
        return Analysis(reason=f"the program word {program.raw!r} is not a plain literal")
    if program.value in _RESERVED or program.value in _LISTS:
        return Analysis(reason=f"the reserved word {program.value!r} where a program belongs")
    name = _basename(program.value)
    if name in _REFUSED:
        return Analysis(reason=f"{_REFUSED[name]} cannot be checked")
    if (why := builtin_reason(name, words[i + 1:])) is not None:
        return Analysis(reason=why)
    if name in OPAQUE_WRAPPERS:
        return Analysis(reason=f"the arguments of {name} are not modelled")
    if name == "git" and (key := config_env(values[i + 1:])) is not None:
        if key.lower() == "core.hookspath":
            return Analysis(reason=f"git -c {key} names a directory whose hooks this git "
                            "command runs, which the rules cannot see")
        return Analysis(reason=f"git configuration {key!r} comes from the environment or "
                        "another file, which may name a command")
    if name == "git" and (key := config_sets_file(values[i + 1:])) is not None:
        return Analysis(reason=f"git config {key} names a file or directory whose aliases, "
                        "pager or hooks git runs later, which the rules cannot see")
    if name.lower() == "git" and (sub := unknown_git_command(values[i + 1:])) is not None:
        return Analysis(reason=f"{sub!r} is not a git command: it may be an alias or a "
                        f"'git-{sub}' program, which may run anything")
    if name == "crontab" and crontab_reads_input(values[i + 1:]):
        return Analysis(reason="crontab installs the jobs it reads from its input, which run "
                        "later")
    keyword = name == "time" and program.raw == "time" and i == start and not wrapped
    if depth >= _MAX_DEPTH and (name in WRAPPERS or name in SHELLS or name == "find"):
        # past the depth looked into, what it runs would be read as its arguments, and an
        # allow rule naming it (``Bash(nice:*)``) would cover that: a step no allow rule
        # covers (deny and ask rules still see through it: bash.forms)
        steps.append(Step(values[i:], "deep"))
        return Analysis(tuple(steps))
    if name in WRAPPERS:
        end = time_end(words, i) if keyword else wrapper_end(name, words, i)
        if isinstance(end, str):
            return Analysis(reason=end)
        if name == "xargs" and any(w.value.startswith(("-I", "--replace")) for w in words[i:end]):
            return Analysis(reason="xargs -I puts the words it reads anywhere in the command")
        if end == len(words) and appended:
            return Analysis(reason=f"{name} runs the command xargs reads from its input")
        if end == len(words) and starts_shell(name, words[i + 1:end]):
            return Analysis(reason=f"{name} starts a shell that reads the commands it runs "
                            "from its input")
        if end < len(words):
            kind = "transparent" if WRAPPERS[name].transparent else "wrapper"
            inner = analyze(words[end:], depth + 1, wrapped=not keyword,
                            appended=appended or name == "xargs")
            if inner.reason:
                return inner
            steps.append(Step(values[i:], kind, end - i, len(inner.steps)))
            return Analysis((*steps, *inner.steps))
    if name == "find" and appended:
        return Analysis(reason="xargs appends the words it reads to find, which may add an "
                        "-exec action")
    if name == "find":
        found = _find_actions(words, i, depth)
        if isinstance(found, str):
            return Analysis(reason=found)
        if found is not None:
            at, flat = found
            steps.append(Step(values[i:], "shell", at - i, len(flat)))
            return Analysis((*steps, *flat))
    if name in ("source", ".") and (why := sourced_reason(name, words[i + 1:])) is not None:
        return Analysis(reason=why)
    if name in _OTHER_SHELLS and (i + 1 == len(words) or not words[i + 1].plain or words[
            i + 1].value.startswith(("-", "+")) or script_reason(name, words[i + 1])):
        return Analysis(reason=f"{name} runs commands from a string or its input, in a "
                        "language other than sh's")
    if name in SHELLS:
        shell = _shell_string(words, i)
        if isinstance(shell, str):
            return Analysis(reason=shell)
        if shell is not None:
            parsed, at = shell
            lines = analyze_command(parsed, depth + 1)
            if lines.reason:
                return Analysis(reason=lines.reason)
            flat = tuple(s for line in lines.steps for s in line)
            steps.append(Step(values[i:], "shell", at - i, len(flat)))
            return Analysis((*steps, *flat))
    steps.append(Step(values[i:], "program"))
    return Analysis(tuple(steps))


_FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find_actions(words: tuple[Word, ...], i: int,
                  depth: int) -> tuple[int, tuple[Step, ...]] | str | None:
    """For ``find ... -exec CMD ... ;``: where the first command starts and the steps of every
    command find runs; None when it runs none."""
    flat: list[Step] = []
    first, j = None, i + 1
    while j < len(words):
        if words[j].value not in _FIND_ACTIONS:
            j += 1
            continue
        end = next((k for k in range(j + 1, len(words)) if words[k].value in (";", "+")),
                   len(words))
        inner = analyze(words[j + 1:end], depth + 1, wrapped=True)
        if inner.reason:
            return inner.reason
        if any("{}" in step.words[0] for step in inner.steps if step.words):
            return f"find {words[j].value} runs the files it finds ('{{}}' names the command)"
        first = j + 1 if first is None else first
        flat += inner.steps
        j = end + 1
    return None if first is None else (first, tuple(flat))


def _shell_string(words: tuple[Word, ...], i: int) -> tuple[ParsedCommand, int] | str | None:
    """For ``sh -c STRING ...``: the parsed string and its index; None for ``sh script``; a
    reason when the shell reads its commands from its input (``echo rm x | sh``)."""
    name, j = words[i].value, i + 1
    while j < len(words):
        w = words[j].value
        if not w.startswith(("-", "+")) or w in ("-", "--"):
            if w in ("-", "--"):
                break
            if (why := script_reason(name, words[j])) is not None:
                return why
            return None  # a script file: the shell is the program, as python would be
        if w in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            j += 2
            continue
        if not w.startswith("--") and "s" in w[1:]:
            break
        if not w.startswith("--") and "c" in w[1:]:
            if j + 1 >= len(words):
                return f"{name} -c without a command string"
            string = words[j + 1]
            if not string.plain and "$" in string.raw.replace("$'", "").replace('$"', ""):
                return f"the command string of {name} has expansions"
            try:
                return parse_command(string.value), j + 1
            except ShellSyntaxError:
                return f"the command string of {name} does not parse"
        j += 1
    return f"{name} reads the commands it runs from its input"


@dataclass(frozen=True)
class CommandAnalysis:
    """Every simple command of a line: steps per top-level segment, or a reason."""

    steps: tuple[tuple[Step, ...], ...] = ()
    reason: str | None = None


def analyze_command(parsed: ParsedCommand, depth: int = 0) -> CommandAnalysis:
    """Analyse every simple command of ``parsed`` (those inside substitutions too: their
    programs must be provable, though allow rules only ever match top-level commands)."""
    if parsed.refusals:
        return CommandAnalysis(reason=parsed.refusals[0])
    if (why := line_reason(parsed)) is not None:
        return CommandAnalysis(reason=why)
    out: list[tuple[Step, ...]] = []
    for k, seg in enumerate(parsed.words + parsed.nested_words):
        a = analyze(seg, depth)
        if a.reason:
            return CommandAnalysis(reason=a.reason)
        if k < len(parsed.words):
            out.append(a.steps)
    return CommandAnalysis(tuple(out))


@lru_cache(maxsize=512)
def analyze_line(command: str) -> CommandAnalysis:
    """``analyze_command(parse_command(command))``, cached (every Bash rule of a policy looks
    at the same command). Raises ShellSyntaxError."""
    return analyze_command(parse_command(command))
