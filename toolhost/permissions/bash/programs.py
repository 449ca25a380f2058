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

from toolhost.permissions.bash.shell_builtins import (
    COMMAND_VARS,
    DANGEROUS_VARS,
    builtin_reason,
    line_reason,
)
from toolhost.permissions.git.commands import git_subcommand, unknown_git_command
from toolhost.permissions.shell.parse import ParsedCommand, ShellSyntaxError, Word, parse_command

__all__ = ["SHELLS", "WRAPPERS", "Analysis", "Step", "analyze", "analyze_command"]

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
# Wrapper options that, with no command after them, start a shell reading its input.
_SHELL_MODES = {"sudo": ("si", ("--shell", "--login")), "doas": ("s", ())}


@dataclass(frozen=True)
class _Grammar:
    """How a wrapper command (``timeout``, ``env``, ``sudo``...) takes its options and operands."""

    flags: frozenset[str] = frozenset()  # options without a value
    valued: frozenset[str] = frozenset()  # options taking a value (short: attached or next)
    operands: int = 0  # positional words before the command (timeout's duration)
    assignments: bool = False  # NAME=value words may follow the options (env, sudo)
    numeric_flags: bool = False  # nice -10
    transparent: bool = False  # runs the command as is: allow rules may skip the wrapper


def _g(flags: str = "", valued: str = "", **kw: object) -> _Grammar:
    return _Grammar(frozenset(flags.split()), frozenset(valued.split()), **kw)  # type: ignore[arg-type]


WRAPPERS: dict[str, _Grammar] = {
    "env": _g("-i - -0 -v --null --ignore-environment --debug",
              "-u --unset -C --chdir -P -a --argv0", assignments=True),
    "sudo": _g("-A -b -E -H -n -P -S -k -K -s -i -l -v -V --askpass --background "
               "--preserve-env --set-home --non-interactive --preserve-groups --stdin "
               "--reset-timestamp --remove-timestamp --shell --login --list --validate",
               "-u -g -C -D -h -p -r -t -T -U -R --user --group --close-from --chdir --host "
               "--prompt --role --type --command-timeout --other-user --chroot",
               assignments=True),
    "doas": _g("-n -s -L", "-u -C"),
    "command": _g("-p -v -V"),
    "builtin": _g(),
    "exec": _g("-c -l", "-a"),
    "nice": _g("", "-n --adjustment", numeric_flags=True, transparent=True),
    "nohup": _g(transparent=True),
    "timeout": _g("--preserve-status --foreground -v --verbose",
                  "-k --kill-after -s --signal", operands=1, transparent=True),
    "time": _g("-p -a -v -q --append --verbose --portability --quiet",
               "-f --format -o --output", transparent=True),
    "stdbuf": _g("", "-i -o -e --input --output --error", transparent=True),
    "xargs": _g("-0 -r -t -p -x -o --null --no-run-if-empty --verbose --interactive --exit "
                "--open-tty", "-a --arg-file -d --delimiter -E --eof -I --replace -L "
                "--max-lines -n --max-args -P --max-procs -s --max-chars --process-slot-var"),
    "setsid": _g("-c -f -w --ctty --fork --wait"),
    "ionice": _g("-t --ignore", "-c --class -n --classdata"),
    # zsh's precommand modifiers and ``repeat N`` (the CLI runs its commands in zsh where
    # that is the user's shell): they run the command as is
    "noglob": _g(transparent=True), "nocorrect": _g(transparent=True),
    "-": _g(transparent=True), "repeat": _g(operands=1, transparent=True),
}
# Wrappers whose argument grammar is not modelled: seen through for deny, never provable.
_OPAQUE_WRAPPERS = frozenset({
    "taskset", "chrt", "watch", "strace", "ltrace", "chroot", "runuser", "su", "unshare",
    "nsenter", "firejail", "flock", "busybox", "sg", "script", "parallel", "sem", "pkexec",
    "runcon", "setpriv", "setarch", "linux32", "linux64", "prlimit", "numactl", "cgexec",
    "systemd-run", "xvfb-run", "valgrind", "torsocks", "proxychains", "proxychains4",
    "fakeroot", "fakechroot", "faketime", "unbuffer", "expect", "at", "batch", "capsh",
    "chpst", "softlimit", "daemonize", "start-stop-daemon", "rlwrap", "nocache", "eatmydata",
    "bwrap", "proot", "schroot", "catchsegv", "dbus-launch", "dbus-run-session", "tmux",
    "screen", "ssh-agent", "toybox", "sudoedit", "with-contenv", "s6-setuidgid", "setuidgid",
    "envdir", "envuidgid", "pflags", "ts", "tsp", "nq", "chronic", "ifne", "caffeinate"})
WRAPPER_NAMES = frozenset(WRAPPERS) | _OPAQUE_WRAPPERS


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


def _wrapper_end(name: str, words: tuple[Word, ...], i: int) -> int | str:
    """Index of the first word of the command ``words[i]`` (a wrapper) runs, or a reason."""
    grammar = WRAPPERS[name]
    j, operands = i + 1, grammar.operands
    while j < len(words):
        w = words[j].value
        if not words[j].plain:
            return f"{words[j].raw!r} in the options of {name} is not a plain literal"
        if w == "--":
            j += 1
            break
        if not w.startswith("-") or (w == "-" and "-" not in grammar.flags):
            break
        long_form = w.startswith("--") and w.split("=", 1)[0] in grammar.valued | grammar.flags
        numeric = grammar.numeric_flags and re.fullmatch(r"-\d+", w) is not None
        cluster = None if w.startswith("--") else _short_cluster(w[1:], grammar)
        takes_next = w in grammar.valued or cluster == "next"
        if not (w in grammar.flags or takes_next or long_form or numeric or cluster):
            return f"unknown option {w!r} of {name}"
        if takes_next and j + 1 < len(words) and not words[j + 1].plain:
            return f"{words[j + 1].raw!r} in the options of {name} is not a plain literal"
        j += 2 if takes_next else 1
    for _ in range(operands):
        if j >= len(words) or not words[j].plain:
            return f"{name} without its operand"
        j += 1
    return j


def _time_end(words: tuple[Word, ...], i: int) -> int:
    """Where the command of bash's keyword ``time`` (``words[i]``) starts: it takes ``-p``
    and then ``--`` only; any other word is the command (``time -f x ls`` runs ``-f``)."""
    j = i + 1
    for option in ("-p", "--"):
        if j < len(words) and words[j].value == option and words[j].plain:
            j += 1
    return j


def _short_cluster(letters: str, grammar: _Grammar) -> str | None:
    """``-nE`` (flags), ``-uroot`` (a value attached): "done", "next" (the value follows)."""
    for k, letter in enumerate(letters):
        option = "-" + letter
        if option in grammar.valued:
            return "done" if k + 1 < len(letters) else "next"
        if option not in grammar.flags:
            return None
    return "done"


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
    if name in _OPAQUE_WRAPPERS:
        return Analysis(reason=f"the arguments of {name} are not modelled")
    if name == "git" and (key := _config_env(values[i + 1:])) is not None:
        if key.lower() == "core.hookspath":
            return Analysis(reason=f"git -c {key} names a directory whose hooks this git "
                            "command runs, which the rules cannot see")
        return Analysis(reason=f"git configuration {key!r} comes from the environment or "
                        "another file, which may name a command")
    if name == "git" and (key := _config_sets_file(values[i + 1:])) is not None:
        return Analysis(reason=f"git config {key} names a file or directory whose aliases, "
                        "pager or hooks git runs later, which the rules cannot see")
    if name.lower() == "git" and (sub := unknown_git_command(values[i + 1:])) is not None:
        return Analysis(reason=f"{sub!r} is not a git command: it may be an alias or a "
                        f"'git-{sub}' program, which may run anything")
    if name == "crontab" and _crontab_reads_input(values[i + 1:]):
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
        end = _time_end(words, i) if keyword else _wrapper_end(name, words, i)
        if isinstance(end, str):
            return Analysis(reason=end)
        if name == "xargs" and any(w.value.startswith(("-I", "--replace")) for w in words[i:end]):
            return Analysis(reason="xargs -I puts the words it reads anywhere in the command")
        if end == len(words) and appended:
            return Analysis(reason=f"{name} runs the command xargs reads from its input")
        if end == len(words) and _starts_shell(name, words[i + 1:end]):
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
    if name in ("source", ".") and (why := _sourced_reason(name, words[i + 1:])) is not None:
        return Analysis(reason=why)
    if name in _OTHER_SHELLS and (i + 1 == len(words) or not words[i + 1].plain or words[
            i + 1].value.startswith(("-", "+")) or _script_reason(name, words[i + 1])):
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


# git configuration keys whose value never names a program (git --config-env=KEY=VAR)
_SAFE_CONFIG = re.compile(r"(?:http|user|author|committer|color|advice|init|i18n|log|"
                          r"safe|column)\.[\w.-]+|http\..+\.extraheader", re.IGNORECASE)


def _config_env(args: tuple[str, ...]) -> str | None:
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


def _config_sets_file(args: tuple[str, ...]) -> str | None:
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


def _crontab_reads_input(args: tuple[str, ...]) -> bool:
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


def _starts_shell(name: str, options: tuple[Word, ...]) -> bool:
    """Whether ``options`` of ``sudo``/``doas`` (with no command after them) ask for a shell:
    ``sudo -s``, ``sudo -i``, ``sudo -Es``, ``sudo --login``, ``doas -s``."""
    if name not in _SHELL_MODES:
        return False
    letters, longs = _SHELL_MODES[name]
    valued = WRAPPERS[name].valued
    for word in options:
        w = word.value
        if w.split("=", 1)[0] in longs:
            return True
        if w.startswith("-") and not w.startswith("--"):
            for letter in w[1:]:
                if letter in letters:
                    return True
                if "-" + letter in valued:
                    break  # the rest of the word is that option's value
    return False


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
            if (why := _script_reason(name, words[j])) is not None:
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


_INPUT_FILES = re.compile(r"/dev/(stdin|fd/.*|tcp/.*|udp/.*)|/proc/(self|thread-self|\d+)/fd/.*")


def _sourced_reason(name: str, args: tuple[Word, ...]) -> str | None:
    """Why the file ``source``/``.`` reads cannot be named: an option before it (bash 5.3's
    ``-p PATH`` searches a path the line gives; ``--`` ends the options), or its input."""
    if args and args[0].value == "--":
        args = args[1:]
    if not args:
        return None
    if args[0].value.startswith("-") and args[0].value != "-":
        return (f"{name} {args[0].raw!r} reads a file found by an option, not one named as "
                "written")
    return _script_reason(name, args[0])


def _script_reason(name: str, script: Word) -> str | None:
    """Why the script a shell (or ``source``) runs is its input, not a file: ``/dev/stdin``,
    ``/dev/fd/0``, a process substitution ``<(echo rm x)``, a name from an expansion."""
    if not script.plain or _INPUT_FILES.fullmatch(script.value):
        return f"{name} runs the commands of {script.raw!r}: its input, or not a file as written"
    return None


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
