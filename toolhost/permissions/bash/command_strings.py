"""The command lines a program runs from a string it is given, for deny and ask matching
(fail closed): a shell's ``-c``, an awk program's ``system()``, ``git -c core.pager=``,
``ssh host CMD`` and ``-o ProxyCommand=``, ``tar --to-command``, a vim ``-c '!cmd'``, a sed
script's ``e`` command, ``GIT_SSH_COMMAND='...' git fetch``. ``toolhost.permissions.content``
parses each string found and tries the rules on its commands too."""

from __future__ import annotations

import functools
import itertools
import re
import shlex

from toolhost.permissions.bash.interpreters import (
    _AWKS,
    _CODE_STRING,
    _FILE_PROGRAMS,
    _INLINE_CODE,
    _VERSIONED,
    _VIMS,
    _inline_code,
    _literals,
    _ssh_parse,
    base,
    reads_program_from_stdin,
    shell_reads_input,
)
from toolhost.permissions.bash.programs import SHELLS
from toolhost.permissions.bash.runners import is_runner, runner_options, runner_strings
from toolhost.permissions.bash.shell_builtins import COMMAND_VARS
from toolhost.permissions.later.files import content_lines, quick, run_later_content
from toolhost.permissions.shell.parse import ShellSyntaxError, parse_command

__all__ = ["ASSIGNMENT", "CUT", "command_strings", "fed_code_strings"]

ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=.*", re.DOTALL)
# Programs that run their argument as a command line: `sh -c "rm -rf x"`, `eval "rm -rf x"`.
_SHELLS = SHELLS | {"eval", "trap"}


_RUN_OPTIONS = {  # options whose value the program runs as a command line
    "tar": frozenset({"--to-command", "-I", "--use-compress-program", "--info-script",
                      "--new-volume-script", "-F", "--rsh-command"}),
    "rsync": frozenset({"-e", "--rsh", "--rsync-path"}),
    "zip": frozenset({"-TT", "--unzip-command"}),
    "man": frozenset({"-P", "--pager", "-H", "--html"}),
    "scp": frozenset({"-S"}),
    "sftp": frozenset({"-S", "-D"}),
    # GNU and other tools that run a program they are given
    "wget": frozenset({"--use-askpass"}), "sdiff": frozenset({"--diff-program"}),
    "diff3": frozenset({"--diff-program"}), "sort": frozenset({"--compress-program"}),
    "split": frozenset({"--filter"}), "rg": frozenset({"--pre"}),
    "nodemon": frozenset({"--exec", "-x"}), "tcpdump": frozenset({"-z"}),
    # netcat's program to connect, aria2's event hooks
    "nc": frozenset({"-e", "-c"}), "netcat": frozenset({"-e", "-c"}),
    "ncat": frozenset({"-e", "-c", "--exec", "--sh-exec"}),
    "fzf": frozenset({"--preview"}), "bat": frozenset({"--pager"}),
    "aria2c": frozenset({"--on-download-complete", "--on-download-start",
                         "--on-download-error", "--on-download-stop", "--on-download-pause",
                         "--on-bt-download-complete"}),
    "cpio": frozenset({"--rsh-command"}),
    # Miller runs its input files through a command (`--prepipe 'gunzip <'`)
    # go build -toolexec CMD runs CMD before each tool, go vet -vettool a program
    "go": frozenset({"-toolexec", "--toolexec", "-vettool", "--vettool", "-exec", "--exec"}),
    "mlr": frozenset({"--prepipe", "--prepipex"}), "miller": frozenset({"--prepipe", "--prepipex"}),
    # apt-get -o 'APT::Update::Pre-Invoke::=CMD' (DPkg::Post-Invoke ...): the part after '='
    **dict.fromkeys(("apt", "apt-get", "aptitude"), frozenset({"-o", "--option"})),
}
_AWK_STRING = re.compile(r'"((?:[^"\\]++|\\.)*+)"')
# a sed script's `e` command (GNU: runs the rest of its line) or `s///e` flag runs a command
# possessive: a backtracking frame per character of a long unclosed `s/...` (1 MB: 190 MB);
# and as sed reads it, `\/` is always an escaped delimiter, never a `\` then the end
_SED_SUB = re.compile(r"s([^\w\s\\])((?:\\.|(?!\1).)*+)\1((?:\\.|(?!\1).)*+)\1([a-zA-Z0-9]*)")
_SED_E = re.compile(r"(?:^|[;\n{}]|[0-9$/!])\s*e\s+([^;\n}]+)")


_GDB_SHELL = re.compile(r"\s*(?:shell\s+|!|platform\s+shell\s+)")


def _leading_assignments(form: tuple[str, ...]) -> list[str]:
    out = []
    for word in form:
        if not ASSIGNMENT.fullmatch(word):
            break
        name, _, value = word.partition("=")
        if name.rstrip("+") in COMMAND_VARS and value:
            out.append(value)
    return out


def _ssh_strings(form: tuple[str, ...]) -> list[str]:
    """``-o ProxyCommand=CMD`` (any command-valued key) and, for ssh, the command after the
    host, which the remote shell runs (a deny on ``rm`` holds there too: fail closed)."""
    return _ssh_parse(form)[0]


_MAX_FED = 256
# what stands for the strings past _MAX_LINES: every deny and ask Bash rule meets it
CUT = "\x00cut: too many strings to judge"
_MAX_LINES = 1024  # lines of a document (a run-later file's is 16 KiB at most: later.files)
_MAX_LATER_FORMS = 8192  # the forms of a run-later file's lines (content_lines)


def fed_code_strings(command: str, forms: list[tuple[str, ...]]) -> list[str]:
    """When one of ``forms`` is an interpreter that reads its program from stdin (a
    here-document, a here-string, a pipe: ``python3 <<EOF``, ``echo '...' | perl``), the
    string literals of the whole command line, three levels deep (the code quoted for the
    shell, then its own literals): tried as command lines by deny and ask rules (fail
    closed), as for inline code. Past ``_MAX_LINES`` literals or lines, ``CUT`` stands for the
    rest (the 257th line of a document was never looked at)."""
    later = _writes_run_later(command)
    shell = later or any(shell_reads_input(f) for f in forms if f)
    escaped = _escaped(command, forms)
    if not shell and not any(reads_program_from_stdin(f) for f in forms):
        return escaped
    out: list[str] = []
    level = [command]
    cut = False
    for _ in range(3):
        level = [next(g for g in m.groups() if g is not None)
                 for text in level for m in itertools.islice(
                     _CODE_STRING.finditer(text), _MAX_LINES + 1)]
        cut = cut or len(level) > _MAX_LINES
        level = level[:_MAX_LINES]
        out += level
    pieces = command.split("\n", _MAX_LINES + 1)
    cut = cut or len(pieces) > _MAX_LINES + 1  # (the last piece holds the lines past them)
    body = [line for line in pieces[1:_MAX_LINES + 1] if line.strip()]
    # a program fed its script reads it in its own language: sed's `e`, gdb's `shell`, vim's
    # `:!` (each literal handed to it as its script option would be)
    scripted = {base(f[0]) for f in forms if f and base(f[0]) in _FILE_PROGRAMS - _AWKS
                and reads_program_from_stdin(f)}
    if scripted:  # (a here-document's body too)
        out += body
    for name in scripted:
        flag = "-e" if name in ("sed", "gsed") else "-ex" if name in ("gdb", "lldb") else "-c"
        out += [v for lit in list(out) for line in lit.split("\n")
                for v in command_strings((name, flag, line))]
    if shell:  # a here-document's body is shell code: each later line a command line
        out += body
        out += _script_commands("\n".join(pieces[1:_MAX_LINES + 1]), body)
        out += [p for lit in list(out) if "\\n" in lit  # printf 'a\n\trm x' | sh
                for p in lit.replace("\\t", " ").split("\\n")]
    if later:  # a git hook, a shell startup file, an alias or cron file (later.files)
        lines = content_lines(out, _MAX_LATER_FORMS + 1)
        cut = cut or len(lines) > _MAX_LATER_FORMS
        out += lines[:_MAX_LATER_FORMS]
    return out + escaped + ([CUT] if cut else [])


def _script_commands(script: str, body: list[str]) -> list[str]:
    """The simple commands of a document read as one script, as bash reads it (a
    quote opened on one line and closed on a later ``#...`` line holds the command after it:
    ``x='`` then ``#' ; rm -rf y ; '``, which line by line is a comment); ``CUT`` when it
    does not parse and a comment line holds a quote (one such may hide a command)."""
    try:
        parsed = parse_command(script)
    except ShellSyntaxError:
        hiding = any(line.lstrip().startswith("#") and ("'" in line or '"' in line)
                     for line in body)
        return [CUT] if hiding else []
    return [shlex.join(words) for words in parsed.segments + parsed.nested]


# programs whose own language runs a shell command (ed's and ftp's `!cmd`, dc's
# `!`, sqlite3's `.shell`/`.system`, psql's `\!`, mysql's `system`, m4's `syscmd(...)`,
# socat's EXEC:/SYSTEM: address): what follows, in an argument or a line fed to it
_ESCAPES = {name: re.compile(rx, re.MULTILINE | re.IGNORECASE) for names, rx in (
    (("ed", "red", "ex", "ftp", "lftp", "sftp", "tnftp", "ncftp"), r"(?:^|[;'\"]\s*)!(.+)$"),
    (("dc",), r"!(.+)$"),
    (("sqlite3", "sqlite"), r"^\s*\.(?:shell|system)\s+(.+)$"),
    (("psql", "mysql", "mariadb"), r"\\!\s*(.+)$|^\s*system\s+(.+)$"),
    (("m4", "gm4"), r"e?syscmd\(([^()]*)\)"),  # (not `(`: linear)
    (("socat",), r"(?:^|[\s!])(?:exec|system):([^,]+)"),
    (("fzf",), r"(?:execute|execute-silent|become|reload)[(\[{<]([^()\[\]}>]+)"),
) for name in names}


def _escaped(command: str, forms: list[tuple[str, ...]]) -> list[str]:
    """The shell commands of a program among ``forms`` whose own language runs one
    (``_ESCAPES``), in its arguments or anything fed to it: every match in the whole line."""
    names = {base(f[0]) for f in forms if f and base(f[0]) in _ESCAPES}
    if not names:
        return []
    texts = [command, *(next(g for g in m.groups() if g is not None)
                        for m in _CODE_STRING.finditer(command))][:_MAX_FED]
    return [g.strip(" \t'\"") for name in names for text in texts
            for m in _ESCAPES[name].finditer(text) for g in m.groups() if g]


def _writes_run_later(command: str) -> bool:
    """It writes a git hook, a shell startup file ... (``later.files``): what it writes runs
    later, so it is tried as a shell's input would be."""
    if not quick(command):
        return False
    try:
        return run_later_content(parse_command(command))
    except ShellSyntaxError:
        return False


def _git_config(form: tuple[str, ...]) -> list[str]:
    """``git config [set|--add ...] KEY VALUE``: a value git runs later (``alias.x '!rm x'``,
    ``core.pager``, ``core.sshCommand``): each word after a key is tried (fail closed)."""
    if "config" not in form[1:_CONFIG_SCAN]:
        return []
    at = form.index("config")
    words = [w for w in form[at + 1:] if not w.startswith("-")]
    out = []
    for key, value in itertools.pairwise(words):
        if "." in key and not key.startswith("."):
            alias = key.lower().startswith("alias.") and not value.startswith("!")
            out.append("git " + value if alias else value.lstrip("!"))
    return out


def _cli_alias(name: str, form: tuple[str, ...]) -> list[str]:
    """``gh alias set NAME EXPANSION`` (``glab`` too): a shell alias (``!rm x``, ``--shell``)
    runs its expansion with sh later, another one is a command of ``name``: tried now."""
    if form[1:3] != ("alias", "set"):
        return []
    shell = any(w in ("-s", "--shell") for w in form[3:])
    words = [w for w in form[3:] if not w.startswith("-")]
    return [value.lstrip("!") if shell or value.startswith("!") else f"{name} {value}"
            for value in words[1:]]


_CONFIG_SCAN = 16
_NPM_SET = re.compile(r"scripts\.[^=]+=(.*)|script-shell=(.*)", re.DOTALL)


def _npm_scripts(form: tuple[str, ...]) -> list[str]:
    """``npm pkg set scripts.x=CMD``, ``npm set-script x CMD``, ``npm config set
    script-shell PROG``: a command line a later ``npm run`` runs."""
    out = [v for w in form[2:] if (m := _NPM_SET.match(w)) for v in m.groups() if v]
    if form[1:2] == ("set-script",) and len(form) > 3:
        out.append(form[3])
    if "script-shell" in form and form.index("script-shell") + 1 < len(form):
        out.append(form[form.index("script-shell") + 1])
    if form[1:2] in (("config",), ("set",), ("c",)):  # npm config set editor PROG
        out += [form[k + 1] for k, w in enumerate(form[:-1]) if w in _NPM_PROGRAMS]
        out += [w.partition("=")[2] for w in form[2:] if w.partition("=")[0] in _NPM_PROGRAMS]
    return out


# npm/yarn settings naming a program they run later (npm config set editor PROG)
_NPM_PROGRAMS = frozenset({"shell", "editor", "git", "browser", "node-gyp", "script-shell"})


# long options whose value is a command line that no table above lists by its full name
_MORE_LONG = {"tar": ("--checkpoint-action",), "sed": ("--expression",),
              "git": ("--config",),  # git clone --conf core.pager=CMD
              "gsed": ("--expression",), "gdb": ("--eval-command",)}


@functools.lru_cache(maxsize=256)
def _long_options(name: str) -> tuple[str, ...]:
    opts = {*_RUN_OPTIONS.get(name, ()), *runner_options(name), *_MORE_LONG.get(name, ())}
    return tuple(sorted(o for o in opts if o.startswith("--")))


def _unabbreviated(name: str, form: tuple[str, ...]) -> tuple[str, ...]:
    """``form`` with each long option written as an abbreviation of one whose value is a
    command line spelled out (``tar --to-com=CMD``, ``git rebase --exe CMD``: getopt_long,
    git and argparse take any unambiguous prefix; fail closed: the first option it starts)."""
    longs = _long_options(name)
    if not longs or not any(w[:2] == "--" for w in form[1:]):
        return form
    out = list(form)
    for k, word in enumerate(form[1:], 1):
        key, eq, value = word.partition("=")
        if len(key) > 3 and key[:2] == "--" and key not in longs:
            full = next((o for o in longs if o.startswith(key)), None)
            if full is not None:
                out[k] = full + eq + value
    return tuple(out)


def command_strings(form: tuple[str, ...]) -> list[str]:
    """The strings a command runs as a command line, for deny matching (fail closed): a
    shell's or ``eval``'s arguments; every string literal of an awk program that can run one
    (``system("rm x")``, ``print | "rm x"``, ``"rm x" | getline``); the value of every
    ``git -c key=value`` (``core.pager``, ``alias.x=!rm x``, ``core.sshCommand`` run it); the
    value of an option that names a command (``tar --to-command``, ``rsync -e``, ``zip -TT``,
    ``man -P``, ``ssh -o ProxyCommand=``); the command ssh runs on the host; a vim ``-c
    '!cmd'``; a sed script's ``e`` command; and a leading ``GIT_SSH_COMMAND=``, ``PAGER=``,
    ``EDITOR=`` ... assignment's value."""
    out = _leading_assignments(form)
    if out:
        return out
    name = base(form[0])
    form = _unabbreviated(name, form)
    if is_runner(name):  # docker run img CMD, npx CMD, git rebase --exec CMD (runners.py)
        out = runner_strings(name, form)
    if name in _SHELLS:
        return list(form[1:])
    if name in _INLINE_CODE or _VERSIONED.fullmatch(name):  # (bun x CMD: a runner too)
        return out + _inline_code(name, form)
    if name == "deno" and form[1:2] == ("eval",):  # deno eval 'Deno.run({cmd: ["rm"]})'
        return _literals(list(form[2:]))
    if name in _AWKS:
        return [m.group(1) for arg in form[1:] if "system" in arg or "|" in arg
                for m in _AWK_STRING.finditer(arg)]
    if name in ("ssh", "scp", "sftp"):
        out = _ssh_strings(form)
    if name in _RUN_OPTIONS:  # tar --to-command=CMD, rsync -e CMD, zip -TT CMD ...
        opts = _RUN_OPTIONS[name]
        for k, word in enumerate(form[1:], 1):
            if word in opts and k + 1 < len(form):
                out.append(form[k + 1])
            elif word.partition("=")[0] in opts and "=" in word:
                out.append(word.partition("=")[2])
            elif word[:1] == "-" and word[1:2] != "-":  # -e'ssh -p 2' / -Srm / -avze CMD
                out += [word[at + 1:] or (form[k + 1] if k + 1 < len(form) else "")
                        for opt in opts if len(opt) == 2 and (at := word.find(opt[1])) > 0][:1]
        if name.startswith("apt"):  # an APT option's value: Key::Name=CMD
            out = [v.partition("=")[2] for v in out]
        return out
    if name in _VIMS:  # vim -c '!rm x', vim +'!rm x', vim -c ':!rm x'
        values = [form[k + 1] for k, w in enumerate(form[1:-1], 1) if w in ("-c", "--cmd")]
        values += [w[1:] for w in form[1:] if w.startswith("+")]
        return [*(v.partition("!")[2] for v in values if "!" in v),  # :!cmd, silent !cmd
                *(m.group(1) for v in values if "system" in v for m in _AWK_STRING.finditer(v))]
    if name in ("less", "more", "most"):  # less +'!rm x': its `!` command runs a shell
        return [w[1:].lstrip(":").partition("!")[2] for w in form[1:]
                if w.startswith("+") and "!" in w]
    if name in ("gdb", "lldb"):  # gdb -ex 'shell rm x', -ex '!rm x', lldb -o 'platform shell'
        values = [form[k + 1] for k, w in enumerate(form[1:-1], 1)
                  if w.lstrip("-") in ("ex", "eval-command", "iex", "o", "one-line")]
        values += [w.partition("=")[2] for w in form[1:] if w.startswith("--eval-command=")]
        args = [" ".join(form[form.index("--args") + 1:])] if "--args" in form else []
        return [*args, *(_GDB_SHELL.sub("", v, count=1) for v in values if _GDB_SHELL.match(v))]
    if name in ("sed", "gsed"):
        scripts = [a.partition("=")[2] if a.startswith("--expression=") else a
                   for a in form[1:] if a.startswith("--expression=") or not a.startswith("-")]
        return [*(m.group(1).strip() for arg in scripts for m in _SED_E.finditer(arg)),
                *(m.group(3) for arg in scripts for m in _SED_SUB.finditer(arg)
                  if "e" in m.group(4))]  # s/x/rm y/e runs the line it makes
    if name in ("gh", "glab"):  # gh alias set x '!rm y': run later by gh x
        return out + _cli_alias(name, form)
    if name in ("npm", "pnpm", "yarn"):  # run later: npm pkg set scripts.test='rm x'
        return out + _npm_scripts(form)
    if name == "git":
        out += _git_config(form)
        for k, word in enumerate(form[1:-1], 1):
            value = form[k + 1] if word in ("-c", "--config") else word[2:] if word[
                :2] == "-c" else word[9:] if word.startswith("--config=") else ""
            key, _, run = value.partition("=")
            if key.lower().startswith("alias.") and run and not run.startswith("!"):
                run = "git " + run  # alias.p=push: `git p` is `git push`
            out.append(run.lstrip("!"))
        return [v for v in out if v]
    return out
