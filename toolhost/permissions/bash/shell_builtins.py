"""Bash builtins that assign variables or evaluate their arguments as code, for ``programs``.

``PATH=./x ls`` changes what ``ls`` runs, and so do the builtins that assign a variable by name:
``printf -v PATH``, ``read PATH``, ``mapfile``, ``getopts``, ``let``, ``declare -n`` (a name
reference), ``export``/``declare``/``typeset``/``local``/``readonly``. And bash evaluates some
arguments as arithmetic or as a variable name with a subscript (``test -v 'a[$(rm x)]'``,
``[[ x -eq 1 ]]``, ``let``, ``((...))``, ``printf -v``, ``read``, ``unset``, ...), running any
``$(...)`` or backtick inside, even from quoted text: a command deny rules never see. This module
says why such a command cannot be proven.
"""

from __future__ import annotations

import re

from toolhost.permissions.shell.expansions import NUMERIC_PARAM, arith_refusal, subscript_refusal
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["COMMAND_VARS", "DANGEROUS_VARS", "builtin_reason", "line_reason"]

# Variables that change which program a name runs, or what a program loads.
DANGEROUS_VARS = re.compile(r"PATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|"
                            r"GLOBIGNORE|EXECIGNORE|BASH_CMDS|BASH_ALIASES|LD_\w*|DYLD_\w*|"
                            r"GCONV_PATH|BASH_LOADABLES_PATH|CDPATH|"
                            # git's configuration from the environment (core.pager, alias.x
                            # ...) and the directory its subcommands are run from
                            r"GIT_CONFIG_\w+|GIT_CONFIG|GIT_EXEC_PATH|"
                            # where git (and many programs) read their configuration:
                            # $XDG_CONFIG_HOME/git/config names core.fsmonitor, hooksPath
                            r"XDG_CONFIG_HOME|XDG_CONFIG_DIRS")
# Variables whose value a program runs as a command line (`GIT_SSH_COMMAND='rm x' git fetch`,
# `PAGER='rm x' man ls`): an assignment to one is a step an allow rule must name, and deny rules
# are tried on its value.
COMMAND_VARS = frozenset({
    "GIT_SSH_COMMAND", "GIT_SSH", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
    "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "SSH_ASKPASS", "SUDO_ASKPASS",
    "PAGER", "MANPAGER", "SYSTEMD_PAGER", "EDITOR", "VISUAL", "LESSOPEN", "LESSCLOSE",
    "BROWSER", "RSYNC_RSH", "CVS_RSH", "FCEDIT",
    "RSYNC_CONNECT_PROG", "GH_PAGER", "GH_EDITOR", "GH_BROWSER", "KUBE_EDITOR", "SUDO_EDITOR",
    "SYSTEMD_EDITOR", "SVN_SSH", "SVN_EDITOR", "CVSEDITOR", "HGEDITOR", "BZR_EDITOR",
    "PSQL_PAGER", "PSQL_EDITOR", "PERLDOC_PAGER", "GIT_SSH_VARIANT_COMMAND"})
_IDENT = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*")
_NAME_START = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?=$|\[|\+?=)")
DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
# Builtins that evaluate an argument as arithmetic or as a (subscripted) variable name.
EVALUATORS = DECLARERS | frozenset({"let", "test", "[", "[[", "read", "mapfile", "readarray",
                                    "getopts", "unset", "wait", "printf"})
# printf evaluates only its -v name, which builtin_reason checks (it needs a plain name).
_LINE_EVALUATORS = EVALUATORS - {"printf"}
# Options taking a value, per builtin that assigns the variables its other words name.
# ``[[``'s comparisons that evaluate both operands as arithmetic (``test`` and ``[`` do not).
_ARITH_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_INTEGER = re.compile(r"-?[0-9]+")
_LET_TARGET = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*(?:[-+*/%&|^]|<<|>>)?=(?!=)")
_VALUED = {"read": "adinNptu", "mapfile": "dnOsuCc", "readarray": "dnOsuCc", "wait": "",
           "getopts": "", "printf": "v"}


def _dangerous_ident(text: str) -> str | None:
    return next((m.group() for m in _IDENT.finditer(text) if DANGEROUS_VARS.fullmatch(
        m.group())), None)


def _assigned(name: str, words: tuple[Word, ...]) -> list[Word] | str:
    """The words naming the variables ``name`` assigns (``read -r A B``: A, B), or a reason."""
    valued, j = _VALUED[name], 0
    out: list[Word] = []
    while j < len(words):
        w = words[j].value
        if w == "--":
            out += words[j + 1:]
            break
        if not w.startswith("-") or len(w) < 2:
            if name == "printf":
                break  # the format and its arguments: no names
            out.append(words[j])
        else:
            letters = w[1:]
            for k, letter in enumerate(letters):
                if letter == "C" and name in ("mapfile", "readarray"):
                    return f"{name} -C runs a string as a command"
                if letter in valued or (name == "wait" and letter == "p"):
                    value = letters[k + 1:]
                    target = words[j + 1] if not value and j + 1 < len(words) else None
                    if letter in "av" or (letter == "p" and name == "wait"):  # names a variable
                        out.append(target if target else Word(value, value, True))
                    j += 1 if target else 0
                    break
        j += 1
    if name == "getopts" and out:
        out = out[1:]  # the option string
    return out


def builtin_reason(name: str, words: tuple[Word, ...]) -> str | None:
    """Why the builtin ``name`` with arguments ``words`` cannot be proven (None: it can)."""
    if name in ("compgen", "complete", "fc"):
        return _reruns(name, words)
    if name == "bind":
        return _binds_command(words)
    if name not in EVALUATORS:
        return None
    if (why := _evaluated(name, words)) is not None:
        return why
    if name in DECLARERS or name == "let":
        targets = list(words)
        if name != "let" and any(w.value.startswith("-") and "n" in w.value for w in words):
            return f"{name} -n makes a name reference"
    elif name == "unset":
        targets = [w for w in words if not w.value.startswith("-")]
    elif name in ("test", "[", "[["):
        targets = []
    else:
        found = _assigned(name, words)
        if isinstance(found, str):
            return found
        targets = found
    for w in targets:
        if name == "let":
            bad = _dangerous_ident(w.value)
        elif (m := _NAME_START.match(w.raw)) is not None:
            bad = m.group(1) if DANGEROUS_VARS.fullmatch(m.group(1)) else None
            if (why := _subscript(w.raw[m.end():])) is not None:
                return why
        elif w.value.startswith(("-", "+")) and name in DECLARERS:
            continue
        else:
            return f"{name} assigns a variable named by {w.raw!r}, which is not a plain name"
        if bad:
            return f"{name} assigns {bad}, which changes what a name runs"
    evaluated = targets if name == "printf" else words
    if any(w.code for w in evaluated):
        return (f"{name} evaluates its arguments as arithmetic or variable names, and a "
                "'$(' or backtick in them would run a command")
    return None


def _reruns(name: str, words: tuple[Word, ...]) -> str | None:
    """``compgen -C CMD``/``-F FUNC`` run code, ``-W LIST`` expands its list (a ``$(...)``
    there runs); ``complete`` takes the same options and keeps them for every later
    completion of the command it names (an interactive shell runs them on a Tab); ``fc``
    without ``-l`` runs a history line again (``set -o history; history -s 'rm x'; fc -s``):
    checked with bash 5.2."""
    if name == "fc":
        listing = any(w.value[:1] == "-" and "l" in w.value[1:] for w in words)
        return None if listing else "fc runs a line of the history again, which is not on the line"
    for k, w in enumerate(words):
        v = w.value
        if v == "--" or v[:1] != "-":
            continue
        for j, letter in enumerate(v[1:], 1):
            if letter in "CF":
                return f"{name} -{letter} runs a command or function"
            if letter == "W":
                value = v[j + 1:] or (words[k + 1].value if k + 1 < len(words) else "")
                if "$" in value or "`" in value:
                    return f"{name} -W expands its word list, running any '$(' or backtick"
            if letter in "oAGWPSX":
                break  # (the rest of the word, or the next one, is the option's value)
    return None


def _binds_command(words: tuple[Word, ...]) -> str | None:
    """``bind -x 'KEYSEQ: CMD'`` binds a key to a shell command that an interactive shell
    runs when the key is typed: code the line hands over, not a program it names."""
    k = 0
    while k < len(words):
        v = words[k].value
        if v == "--" or v[:1] != "-":
            return None  # (bind reads options only before its first other word)
        for j, letter in enumerate(v[1:], 1):
            if letter == "x":
                return "bind -x binds a key to a shell command"
            if letter in "mfqur":  # (the rest of the word, or the next one, is its value)
                k += 0 if v[j + 1:] else 1
                break
        k += 1
    return None


def _subscript(rest: str) -> str | None:
    """Why the subscript at the start of ``rest`` (after a variable's name) is not provable."""
    if not rest.startswith("["):
        return None
    end = rest.find("]")
    return subscript_refusal(rest[1:end] if end > 0 else rest[1:])


def _evaluated(name: str, words: tuple[Word, ...]) -> str | None:
    """Why ``name`` evaluates a value of its arguments as arithmetic: ``let``, ``declare -i``
    (every later assignment to the name is arithmetic), ``test -v a[i]``, ``[[ x -eq y ]]``."""
    if name == "let":  # ``let n=1+2`` assigns n: only the value is evaluated
        return next((why for w in words if (why := arith_refusal(
            _LET_TARGET.sub("", w.raw, count=1))) is not None), None)
    if name in DECLARERS and any(w.value[:1] in "-+" and "i" in w.value[1:] for w in words):
        return f"{name} -i makes every assignment to the name arithmetic, evaluating values"
    for k, w in enumerate(words):
        if w.value == "-v" and k + 1 < len(words) and name in ("test", "[", "[["):
            if (m := _NAME_START.match(words[k + 1].value)) is None:
                return f"{name} -v names a variable by {words[k + 1].raw!r}"
            if (why := _subscript(words[k + 1].value[m.end():])) is not None:
                return why
    return None


def arith_test_reason(words: tuple[Word, ...]) -> str | None:
    """Why a comparison of ``[[ ]]`` (``-eq``, ``-lt``, ...) in ``words`` is not provable: an
    operand that is not a number is evaluated as arithmetic (a variable's value too)."""
    for k, w in enumerate(words):
        if w.value in _ARITH_TESTS and w.raw == w.value:
            for operand in words[k - 1:k] + words[k + 1:k + 2]:
                if not ((operand.plain and _INTEGER.fullmatch(operand.value))
                        or NUMERIC_PARAM.fullmatch(operand.raw.strip('"'))):
                    return (f"[[ ... {w.value} ... ]] evaluates {operand.raw!r} as arithmetic, "
                            "which could run a command through a variable's value")
    return None


def line_reason(parsed: ParsedCommand) -> str | None:
    """Why a whole line cannot be proven: quoted text holding ``$(`` or a backtick where an
    arithmetic context could evaluate it through a variable (``x='a[$(rm y)]'; ((x))``), or
    an arithmetic expression assigning ``PATH``, ``IFS``, ..."""
    segments = parsed.words + parsed.nested_words
    words = [w for seg in segments for w in seg]
    if any(w.raw == "[[" for w in words):  # its words may be split at && and ||
        for seg in segments:
            if (why := arith_test_reason(seg)) is not None:
                return why
    for w in words:
        if ("((" in w.raw or "$[" in w.raw) and (bad := _dangerous_ident(w.raw)):
            return f"an arithmetic expression names {bad}, which changes what a name runs"
    for seg in segments:  # (inside [[ ]] a word is no command: `=~`, `==`)
        if (eq := next((w for w in seg if w.raw[:1] == "=" and w.raw[1:2] not in ("", "=")),
                       None)) is not None and not any(w.raw == "[[" for w in seg):
            return (f"zsh (the CLI's shell where it is the user's) reads {eq.raw[:40]!r} as "
                    "the path of the program it names")
    if not any(w.code for w in words):
        return None
    evaluating = any(w.arith or "[" in w.raw or "((" in w.raw
                     or w.value.rsplit("/", 1)[-1] in _LINE_EVALUATORS for w in words)
    if evaluating:
        return ("quoted text holds '$(' or a backtick, and the line evaluates arithmetic or "
                "subscripts, which could run it")
    return None
