"""Programs that run code they are handed, and how they are handed it: a shell reading its
input (``sh``, ``bash -s``, ``ssh HOST`` with no command, ``sudo -s``, ``make -f -``), an
interpreter's inline code (``python3 -c``, ``perl -e``, ``node --eval``) and its string
literals, and an interpreter given no script, which runs what its stdin holds. Split from
``bash.command_strings`` (which finds the command lines in a program's arguments) and read by
it, by ``bash.handed``, ``bash.inline_run`` and ``later``."""

from __future__ import annotations

import re

from toolhost.permissions.bash.programs import SHELLS

__all__ = ["base", "inline_codes", "reads_program_from_stdin", "shell_reads_input"]


def base(word: str) -> str:
    """A program's name without its directory (``/bin/rm`` is ``rm``)."""
    return word.rsplit("/", 1)[-1]


_AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})


# ssh (and scp, sftp) options whose value is a local command line: `-o ProxyCommand=...`
_SSH_COMMAND_KEYS = frozenset({"proxycommand", "localcommand", "knownhostscommand",
                               "remotecommand"})
_SSH_VALUE_FLAGS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")  # ssh's one-letter options with values
# interpreters with inline code and the option that carries it: the string literals of the
# code are tried as command lines (`python3 -c 'import os; os.system("rm x")'`)
_INLINE_CODE = {
    "python": "c", "pypy": "c", "perl": "eE", "ruby": "e", "node": "ep", "nodejs": "ep",
    "bun": "ep", "php": "rBRE", "lua": "e", "luajit": "e", "Rscript": "e", "R": "e",
    "julia": "e", "osascript": "e", "tclsh": "", "wish": "", "emacs": "",
}
_INLINE_LONG = frozenset({"--eval", "--print", "-eval", "--execute"})
_VERSIONED = re.compile(r"(python|pypy|perl|ruby|php|lua)[0-9.]*")
# a quoted literal of a script: "...", '...', `...` (perl/ruby/node run backticks)
# ... and perl's q{} qq{} qx{} qw{}, ruby's %q() %Q() %x() %w() (any of {} () [] <>)
_CODE_STRING = re.compile(r'"((?:[^"\\]++|\\.)*+)"|\'((?:[^\'\\]++|\\.)*+)\'|`([^`]*)`'
                          r"|(?:\bq[qxw]?|%[qQxwW]?)\s*(?:\{([^{}]*)\}|\(([^()]*)\)"
                          r"|\[([^\[\]]*)\]|<([^<>]*)>)")
_VIMS = frozenset({"vi", "vim", "nvim", "gvim", "view", "ex", "rvim", "vimdiff"})


def _ssh_parse(form: tuple[str, ...]) -> tuple[list[str], bool]:
    """(the command strings of ``_ssh_strings``, whether ssh runs a command or forwards only:
    with neither, the remote login shell reads its commands from ssh's input)."""
    out: list[str] = []
    quiet = False  # -N: no remote command (forwarding); -W: stdio forwarding
    k, host = 1, None
    while k < len(form):
        word = form[k]
        if word == "--":
            host = k + 1
            break
        if word.startswith("-") and len(word) > 1:
            for i, letter in enumerate(word[1:], 1):
                if letter in _SSH_VALUE_FLAGS:
                    value = word[i + 1:] or (form[k + 1] if k + 1 < len(form) else "")
                    if not word[i + 1:]:
                        k += 1
                    if letter == "o":
                        key, _, rest = value.replace("=", " ", 1).partition(" ")
                        if key.lower() in _SSH_COMMAND_KEYS:
                            out.append(rest.strip())
                    quiet = quiet or letter == "W"
                    break
                quiet = quiet or letter == "N"
            k += 1
            continue
        host = k
        break
    runs = quiet
    if base(form[0]) == "ssh" and host is not None and host + 1 < len(form):
        remote = form[host + 1:]
        out.append(" ".join(remote[1:] if remote[0] == "--" else remote))  # ssh host -- CMD
        runs = True
    return [v for v in out if v], runs


_SUDO_VALUED = frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-T", "-U", "-R",
                          "--user", "--group", "--close-from", "--chdir", "--host",
                          "--prompt", "--role", "--type", "--command-timeout",
                          "--other-user", "--chroot"})


def shell_reads_input(form: tuple[str, ...]) -> bool:
    """A shell given no ``-c`` and no script (``sh``, ``bash -s``, ``bash -``), as a runner
    starts it (``docker exec -i c sh``, ``kubectl exec -i p -- bash -s``), or ``ssh HOST``
    with no command (the remote login shell): it runs the commands its input holds."""
    name = base(form[0])
    if name == "ssh":
        return not _ssh_parse(form)[1]
    if name in ("make", "gmake", "gnumake", "remake"):  # make -f -: recipes from its input
        from toolhost.permissions.later.make_opts import reads_input

        return reads_input(list(form[1:]))  # (-sf -, -f-, --file=-: as make reads them)
    if name in ("sudo", "doas", "su", "sudo-rs", "run0"):  # a login shell reading its input:
        args = form[1:]  # ssh h sudo -s < s.sh, ssh h su - < s.sh (not su -c CMD, sudo CMD)
        if any(a in ("-c", "--command") or a.startswith("--command=") for a in args):
            return False
        if name == "su":
            return all(a.startswith("-") or k == len(args) - 1 for k, a in enumerate(args))
        args = tuple(a for k, a in enumerate(args)  # the values of -u USER, -g GROUP ...
                     if k == 0 or args[k - 1] not in _SUDO_VALUED)
        return all(a.startswith("-") for a in args) and any(
            a in ("--shell", "--login") or (a[1:2] != "-" and set(a[1:]) & set("si"))
            for a in args)
    if name not in SHELLS:
        return False
    args = form[1:]
    if "-s" in args or "-" in args:
        return True
    return not any(a[:1] not in "-+" or (a[:1] == "-" and a[1:2] != "-" and "c" in a)
                   for a in args)


def _inline_code(name: str, form: tuple[str, ...]) -> list[str]:
    """The string literals of an interpreter's inline code (``python -c``, ``perl -e``,
    ``-le``, ``ruby -e``, ``node -e``/``--eval``, ``php -r``, ``lua -e``)."""
    return _literals(inline_codes(name, form))


def inline_codes(name: str, form: tuple[str, ...]) -> list[str]:
    """The inline code an interpreter ``form`` (whose program is ``name``) is given."""
    m = _VERSIONED.fullmatch(name)
    letters = _INLINE_CODE.get(m.group(1) if m else name, "")
    codes: list[str] = []
    for k, word in enumerate(form[1:], 1):
        nxt = form[k + 1] if k + 1 < len(form) else ""
        if word in _INLINE_LONG:
            codes.append(nxt)
        elif word.partition("=")[0] in _INLINE_LONG:
            codes.append(word.partition("=")[2])
        elif word.startswith("-") and not word.startswith("--"):
            at = next((i for i, c in enumerate(word[1:], 1) if c in letters), 0)
            if at:
                codes.append(word[at + 1:] or nxt)
    return codes


def _literals(codes: list[str]) -> list[str]:
    return [next(g for g in lit.groups() if g is not None)
            for code in codes for lit in _CODE_STRING.finditer(code)]


# the one-letter options each interpreter takes WITHOUT a separate value; any other option
# may take the next word as its value (`python3 -W ignore`, `perl -I lib`, `ruby -r x`,
# `node --stack-size 99`, `php -d k=v`, `lua -l m`): that word is not taken for a script
# (fail closed: when unsure, the interpreter reads its program from stdin)
_DIGITS = "0123456789"
_FLAGS = {
    "python": "bBdEhiIOPqsSuvVx?R3tU", "pypy": "bBdEhiIOPqsSuvVx?R3tU",
    "perl": "acnpsStTuUwWvhfgP0lixdDC" + _DIGITS, "ruby": "acdhlnpsSvwyxWKTU" + _DIGITS,
    "node": "ivh", "nodejs": "ivh", "bun": "ivh", "php": "ahHilnqsvwemS", "lua": "ivEW",
    "luajit": "ivEW",
}
_PY_FLAGS = _FLAGS["python"]
# python -m MODULE that reads no program from its input or arguments: its
# words are its options and files, not code; any other module (timeit, code, asyncio, pdb,
# cProfile, pickle, runpy ...) may run code it is given, and stays read as fed a program
_TAKES_NO_CODE = frozenset({
    "pytest", "unittest", "pip", "venv", "virtualenv", "ensurepip", "json.tool",
    "http.server", "compileall", "py_compile", "base64", "gzip", "uuid", "calendar",
    "tabnanny", "build", "twine", "tox", "nox", "mypy", "pylint", "flake8", "black", "isort",
    "ruff", "sphinx", "mkdocs", "pre_commit", "uv", "poetry", "pdm", "hatch", "pipx",
    "zipapp", "sysconfig", "site", "platform", "mimetypes", "tokenize", "ast", "dis"})
_LONG_FLAGS = frozenset({"--version", "--help", "--verbose", "--interactive", "--no-warnings",
                         "--disable-gems", "--jit", "--yjit", "--check-syntax", "--"})


def reads_program_from_stdin(form: tuple[str, ...]) -> bool:
    """An interpreter given no script and no inline code: it runs what its stdin holds
    (``python3``, ``python3 -``, ``perl -w``, ``node --input-type=module``,
    ``python3 -W ignore``, ``perl -I lib``)."""
    if not form:
        return False
    name = base(form[0])
    if name in _FILE_PROGRAMS:  # awk -f -, sed -f /dev/stdin, gdb -x -, vim -S /dev/stdin
        return any(w in _STDIN_FILES or w.partition("=")[2] in _STDIN_FILES for w in form[1:])
    m = _VERSIONED.fullmatch(name)
    if not (name in _INLINE_CODE or m) or _inline_code(name, form):
        return False
    flags = _FLAGS.get(m.group(1) if m else name, "")
    k = 1
    while k < len(form):
        word = form[k]
        if word == "-":
            return True
        if word == "--":
            return k + 1 >= len(form) or form[k + 1] == "-"
        if not word.startswith("-"):  # a script file: its stdin is data, unless it is
            return word in _STDIN_FILES or word.startswith(("<(", "$"))  # stdin, or unknown
        if word.startswith("--"):
            k += 1 if "=" in word or word in _LONG_FLAGS else 2
            continue
        if word[:2] == "-m" and flags == _PY_FLAGS:  # python -m MODULE: the module's words
            module = word[2:] or (form[k + 1] if k + 1 < len(form) else "")
            return module not in _TAKES_NO_CODE
        at = next((i for i, c in enumerate(word[1:], 1) if c not in flags), 0)
        k += 2 if at and at == len(word) - 1 else 1  # a bare value option eats the next word
    return True


# a script file that is the program's input, and the programs that read one with an option
_STDIN_FILES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
_FILE_PROGRAMS = frozenset({*_AWKS, "sed", "gsed", "gdb", "lldb", *_VIMS})
