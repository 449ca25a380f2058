"""A shell script an earlier call wrote, run by this one.

``bash s.sh``, ``sh s``, ``source ./env.sh``, ``. s`` and ``./s.sh`` have the shell (or the
file) as their program: what the script runs is not on the line. An earlier call may have
written it (``echo 'rm -rf ~/x' > s.sh``, allowed: a file no later command was known to run),
and then ``bash s.sh`` ran rm under ``deny: Bash(rm:*)``. The script is read when the call
is decided, as an Edit of a run-later file is (``later.edits``): its text is judged by the
deny and ask Bash rules as a Write of a hook is, and a text whose programs cannot be proven
(or that cannot be read: a FIFO, a device, over 16 KiB, not UTF-8) meets them all. A
program named by its path is read when it starts with a shell's ``#!`` line or none (the
kernel refuses it and the shell runs it itself); a binary or another interpreter's script
is the program, judged by its name as before. Scripts it runs are read the same way, three
deep. After a ``cd`` on the line, a relative script path is not known: not provable.

A script an interpreter on the same line may write first (``python3 -c
'open("s","w").write(...)'; bash s``) is not provable when the interpreter's words name it,
or when a script run by a shell is not there yet; ``make && ./app`` (no interpreter, a
program named by its path) stays as it was.
"""

from __future__ import annotations

import os
import re

from toolhost.permissions.bash.budget import scan_line
from toolhost.permissions.bash.programs import SHELLS
from toolhost.permissions.bash.shell_builtins import COMMAND_VARS, DANGEROUS_VARS
from toolhost.permissions.fileread import read_regular
from toolhost.permissions.later.files import past_wrappers
from toolhost.permissions.later.judge import Judge
from toolhost.permissions.later.where import MOVES
from toolhost.permissions.later.words import unplain_lines
from toolhost.permissions.shell.parse import ParsedCommand, ShellSyntaxError, Word, parse_command

__all__ = ["script_reason"]

LIMIT = 16 * 1024  # what a Bash write of a run-later file is judged up to (later.edits)
_DEPTH = 3
# reserved words and builtins a command may follow on its segment (``then ./s``)
_LEADS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "{", "(",
                    "time", "exec", "command", "builtin", "-p"})
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")  # X=1 bash s.sh
_SHELL_ARG_OPTIONS = frozenset({"-o", "+o", "-O", "+O", "--rcfile", "--init-file"})

# programs whose own code may write the script a later segment runs
_INTERPRETERS = frozenset({"python", "perl", "ruby", "node", "nodejs", "php", "lua", "bun",
                           "deno", "Rscript", "tclsh", "awk", "gawk", "mawk", "pypy", "osascript"})
# a script setting what names run: PATH (``export PATH=./evil:$PATH`` then ``ls``
# runs ./evil/ls; sourced, for the rest of the line too), BASH_ENV, LD_PRELOAD, PAGER ...:
# the name written other than as an expansion ($PATH, ${PATH:-}), or ``hash -p``, ``enable``
_SETS = re.compile(r"(?<![\w$#!{])(" + DANGEROUS_VARS.pattern + "|" + "|".join(
    sorted(COMMAND_VARS)) + r")(?!\w)|(?<![\w-])(?:enable|hash\s+(?:-\w+\s+)*-\w*p)(?![\w-])")
_READ_IFS = re.compile(r"(?<![\w$])IFS=\S*[ \t]+read\b")  # (while IFS= read -r l: read's own)


def _scripts(words: tuple[Word, ...]) -> list[tuple[Word, bool]]:
    """The files ``words`` runs as shell scripts: (word, named as the program)."""
    lead = 0
    while lead < len(words) and (words[lead].value in _LEADS or _ASSIGN.match(words[lead].raw)):
        lead += 1
    words = words[lead:]
    at = past_wrappers(words)
    if at >= len(words):
        return []
    program = words[at]
    name = program.value.rsplit("/", 1)[-1]
    if "/" in program.value:
        return [(program, True)]
    if name in ("source", "."):  # (``. -- s`` runs s; an option is refused in bash.programs)
        at += 1 + (at + 1 < len(words) and words[at + 1].value == "--")
        return [(words[at], False)] if at < len(words) else []
    if name not in SHELLS:
        return []
    rest = iter(words[at + 1:])
    for word in rest:
        value = word.value
        if value in _SHELL_ARG_OPTIONS:
            next(rest, None)
        elif value == "--":
            continue
        elif value.startswith(("-", "+")):
            if not value.startswith("--") and ("c" in value or "s" in value):
                return []  # a command string, or stdin (judged elsewhere)
        else:
            return [(word, False)]
    return []


def _interprets(words: tuple[Word, ...]) -> bool:
    """Whether ``words`` runs an interpreter, whose own code may write any file."""
    at = past_wrappers(words)
    name = words[at].value.rsplit("/", 1)[-1] if at < len(words) else ""
    return name.rstrip("0123456789.") in _INTERPRETERS


def _read(path: str) -> tuple[str | None, bool]:
    """(the text, whether it is there): None for text that cannot be judged; never blocks
    (a FIFO is opened non-blocking and refused)."""
    read = read_regular(path, LIMIT)
    if read.kind in ("missing", "directory"):  # (a directory: not run, bash says so)
        return None, False
    if read.kind == "other":
        return None, True
    data = read.data
    if b"\x00" in data[:1024]:
        return "\x00", True  # a binary (run as itself), or a script bash would cut
    if read.too_long:
        head = data[:1024].decode("utf-8", "replace")  # the #! line says who runs it
        return (None if _is_shell_text(head) else head), True
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return None, True


def _shell_text(text: str | None, as_program: bool) -> bool:
    """Whether a file run by its path is run by a shell: a shell's ``#!`` line, or none."""
    if not as_program or text is None:
        return True
    if "\x00" in text[:1024]:
        return False  # a binary: the program itself
    return _is_shell_text(text)


def _is_shell_text(text: str) -> bool:
    if not text.startswith("#!"):
        return True
    line = text[2:].split("\n", 1)[0].split()
    if line and line[0].rsplit("/", 1)[-1] == "env":
        line = [w for w in line[1:] if not w.startswith("-") and "=" not in w]
    return bool(line) and line[0].rsplit("/", 1)[-1] in SHELLS


def script_reason(parsed: ParsedCommand, cwd: str, judge: Judge | None,
                  depth: int = 0) -> str | None:
    """Why a shell script ``parsed`` runs cannot be proven (None: it runs none, or each one
    read meets no deny or ask Bash rule and its programs are proven)."""
    segments = parsed.words + parsed.nested_words
    moved = any(w.value in MOVES for words in segments for w in words)  # (fail closed)
    for words in segments:
        for word, as_program in _scripts(words):
            if not word.plain:
                return f"it runs a script named {word.raw!r}, which is not known before it runs"
            path = os.path.expanduser(word.value)
            if not os.path.isabs(path) and moved:
                return (f"it runs the script {word.raw!r} after a cd: which file that is "
                        "is not known")
            base = os.path.basename(os.path.normpath(path))
            scan_line(parsed)  # (each script looks at the whole line)
            coders = [c for c in segments if c is not words and _interprets(c)]
            if any(base in w.value for c in coders for w in c[1:]):
                return (f"it runs {word.raw!r}, which a program's own code on the line may "
                        "write first")
            text, there = _read(os.path.join(cwd, path))
            if not there and coders and not as_program:
                return (f"it runs the script {word.raw!r}, not there yet: a program on the "
                        "line may write it first")
            if not there or not _shell_text(text, as_program):
                continue
            why = _judged(text, cwd, judge, depth)
            if why is not None:
                return f"it runs the script {word.raw!r}, whose text {why}"
    return None


def _judged(text: str | None, cwd: str, judge: Judge | None, depth: int) -> str | None:
    if judge is None:
        return None
    if text is None or "\x00" in text:
        return "cannot be read as a script here" if judge([None]) else None
    if judge([text]):
        return "a deny or ask rule meets"
    sets = _SETS.search(_READ_IFS.sub("read", text))
    if sets is not None and judge([None]):
        why = f"changes what the names after it run ({sets.group(0).split()[0]!r})"
        if "VIRTUAL_ENV" in text:  # (an activate script: its bin/ comes first on PATH)
            why += (" (a virtualenv's activate puts its bin/ first on PATH: run its programs "
                    "by their path, e.g. .venv/bin/python, or make without activating)")
        return why
    if depth + 1 >= _DEPTH:
        return "runs scripts too deep to read" if judge([None]) else None
    # as a hook's text written on a line is (later.words): each command word plain
    word = unplain_lines(text)
    inner = None if word is None else f"names the program {word!r}, not a plain literal"
    if inner is None:
        try:
            inner = script_reason(parse_command(text), cwd, judge, depth + 1)
        except ShellSyntaxError:
            inner = None  # (each line was judged above)
    if inner is not None and judge([None]):  # a rule to hold: what it runs must be proven
        return f"cannot be proven ({inner})"
    return None
