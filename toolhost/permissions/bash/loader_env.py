"""Environment variables that make an interpreter load code the line does not name:
``PYTHONPATH=lib python3 -c 1`` runs ``lib/sitecustomize.py`` at start (and a
``lib/json.py`` in place of the standard library's), ``PYTHONSTARTUP=f python3 -i`` runs
``f``, ``PERL5OPT=-Mx``, ``RUBYOPT=-rx``, ``NODE_OPTIONS=--require=x`` and
``JAVA_TOOL_OPTIONS=-javaagent:x`` load a module, ``PYTHONHOME``/``PYTHONUSERBASE`` move the
site directories (whose ``.pth`` files run), ``GIT_TEMPLATE_DIR`` gives ``git init`` hooks,
``GOFLAGS=-toolexec=CMD`` and ``GOENV`` choose what go runs; ``PYTHONWARNINGS`` with a dotted
category imports its module (``ignore::antigravity.X`` runs ``$BROWSER``), ``LUA_INIT`` is
code, and the search paths of node, java, ruby's gems, lua, R and tcl, R's and PHP's start-up
files, zsh's ``ZDOTDIR`` and .NET's startup hooks choose what runs.
Checked with python 3.11 (sitecustomize, PYTHONSTARTUP). Where a deny or ask Bash rule
exists, an assignment to one (leading, after ``env``/``sudo``, or ``export``/``declare``) is
not provable, but a ``PYTHONPATH`` whose directories hold no module of the standard library
and no ``sitecustomize``/``usercustomize`` (read here, as the current directory is)."""

from __future__ import annotations

import os
import re

from toolhost.permissions.bash.fresh_files import may_write
from toolhost.permissions.bash.python_args import PYTHON, python_run
from toolhost.permissions.later.shadow import modules_in
from toolhost.permissions.later.where import MOVES
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["assigned_loader", "loader_env_reason"]

_LOADERS = frozenset({
    "PYTHONSTARTUP", "PYTHONINSPECT", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONBREAKPOINT",
    "PYTHONPLATLIBDIR", "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB",
    "NODE_OPTIONS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
    "GIT_TEMPLATE_DIR",
    # bytecode read from another tree: a .pyc planted there runs in place of the source
    "PYTHONPYCACHEPREFIX",
    # where modules, classes and gems are found: a name the script imports comes from there
    # (rubygems also loads every rubygems_plugin.rb of the gems on GEM_PATH at start)
    "NODE_PATH", "CLASSPATH", "GEM_PATH", "GEM_HOME", "BUNDLE_GEMFILE", "TCLLIBPATH",
    "LUA_PATH", "LUA_CPATH", "R_LIBS", "R_LIBS_USER", "R_LIBS_SITE",
    # code run at an interpreter's start: LUA_INIT is Lua source (or @file), R's profiles and
    # environ files, PHP's ini (auto_prepend_file), zsh's startup files, .NET's startup hooks
    "LUA_INIT", "R_PROFILE", "R_PROFILE_USER", "R_ENVIRON", "R_ENVIRON_USER", "PHPRC",
    "PHP_INI_SCAN_DIR", "ZDOTDIR", "DOTNET_STARTUP_HOOKS",
    # node's REPL module, Erlang's emulator flags (-eval, -s), OpenSSL's config (engines,
    # providers), the go toolchain a name runs
    "NODE_REPL_EXTERNAL_MODULE", "ERL_FLAGS", "ERL_AFLAGS", "ERL_ZFLAGS", "OPENSSL_CONF",
    "OPENSSL_ENGINES", "OPENSSL_MODULES", "GOROOT", "GOTOOLCHAIN",
    # options a program reads from its environment, among them ones that run a command
    # (TAR_OPTIONS=--to-command=CMD, LESS='+!CMD', ZIPOPT=-TT CMD, MANOPT=-P CMD)
    "TAR_OPTIONS", "ZIPOPT", "MANOPT", "LESS",
    # the home folder: python's user site (its .pth files run), the rc files of wget, curl,
    # npm, less, ssh ... that choose code are read from it
    "HOME"})
# Lua's versioned names (LUA_INIT_5_4, LUA_PATH_5_3, ...) are read before the plain ones
_LUA_VERSIONED = re.compile(r"LUA_(?:INIT|PATH|CPATH)_\d+_\d+")
# a warnings filter's category (action:message:category:module:lineno): a dotted category is
# imported at python's start (``ignore::antigravity.X`` runs $BROWSER); builtin names are not
_WARN_CATEGORY = re.compile(r"[^:,]*:[^:,]*:[^:,]*\.")
_SETTERS = frozenset({"env", "sudo", "doas", "export", "declare", "typeset", "local",
                      "readonly", "nice", "nohup", "time"})
_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=(.*)", re.S)
_GO_RUNS = re.compile(r"-?-(?:toolexec|vettool|exec|overlay)\b")
_CUSTOMIZE = {"sitecustomize", "usercustomize"}


def _assignments(form: tuple[str, ...]) -> list[tuple[str, str]]:
    """The ``NAME=value`` words a form sets before its program (after env/sudo/export...)."""
    out = []
    for word in form:
        m = _ASSIGN.fullmatch(word)
        if m is not None:
            out.append((m.group(1), m.group(2)))
        elif not (word[:1] == "-" or word.rsplit("/", 1)[-1] in _SETTERS):
            break
    return out


def loader_env_reason(forms: list[tuple[str, ...]], cwd: str,
                      parsed: ParsedCommand | None = None) -> str | None:
    """Why an assignment among ``forms`` makes an interpreter load code off the line (None:
    none does). Call only where a deny or ask Bash rule exists."""
    if (why := assigned_loader(forms)) is not None:
        return why
    moved = any(f[0] in MOVES for f in forms if f)
    for form in forms:
        for name, value in _assignments(form):
            if name != "PYTHONPATH":
                continue
            if parsed is not None and may_write(parsed, _program(form)):
                return ("the line may write a module into a PYTHONPATH folder before python "
                        "imports it (the folder is looked at before the line runs)")
            if (why := _pythonpath(value, cwd, moved)) is not None:
                return why
    return None


def assigned_loader(forms: list[tuple[str, ...]]) -> str | None:
    """Why an assignment among ``forms`` loads code whatever the files hold
    (``PYTHONSTARTUP=``, ``PERL5OPT=``, ``GOFLAGS=-toolexec=``; lint's ``never-allows``)."""
    for form in forms:
        for name, value in _assignments(form):
            if name in _LOADERS or _LUA_VERSIONED.fullmatch(name):
                return (f"{name}= makes an interpreter load code the line does not name, "
                        "which the rules cannot see")
            if name == "PYTHONWARNINGS" and _imports_category(value):
                return ("PYTHONWARNINGS= names a warning category in a module, which python "
                        "imports at its start (code the line does not name)")
            if name == "GOENV" or (name == "GOFLAGS" and _GO_RUNS.search(value)):
                return f"{name}= makes go run a program the line does not name"
        if (category := _warning_option(form)) is not None:
            return (f"python's -W {category} names a warning category in a module, which "
                    "python imports at its start (code the line does not name)")
    return None


def _warning_option(form: tuple[str, ...]) -> str | None:
    """A ``-W`` filter of a python form whose category python must import (``python3 -W
    ignore::evil.X``, ``-uWignore::evil.X``), None: none."""
    words = [w for w in form if not _ASSIGN.fullmatch(w)]
    at = next((i for i, w in enumerate(words) if PYTHON.fullmatch(w.rsplit("/", 1)[-1])),
              None)
    run = python_run(tuple(words[at:])) if at is not None else None
    if run is None:
        return None
    return next((value for value in run.warnings if _imports_category(value)), None)


def _imports_category(value: str) -> bool:
    """Whether a PYTHONWARNINGS value names a category python must import (a dotted one),
    or cannot be read as filters without the shell (an expansion)."""
    return "$" in value or "`" in value or any(
        _WARN_CATEGORY.match(entry.strip()) for entry in value.split(","))


def _program(form: tuple[str, ...]) -> str:
    """The program a form runs past its assignments and wrappers (``python3``)."""
    rest = [w for w in form if not (_ASSIGN.fullmatch(w) or w[:1] == "-"
                                    or w.rsplit("/", 1)[-1] in _SETTERS)]
    return rest[0].rsplit("/", 1)[-1] if rest else ""


def _pythonpath(value: str, cwd: str, moved: bool) -> str | None:
    for entry in value.split(":"):
        if "$" in entry or "`" in entry or (moved and not entry.startswith(("/", "~"))):
            return f"PYTHONPATH names {entry!r}, a directory not known before the line runs"
        folder = os.path.join(cwd, os.path.expanduser(entry or "."))
        hits = modules_in(folder, set(_CUSTOMIZE))
        if hits is None:
            return f"PYTHONPATH names {entry!r}, which holds too many entries to look through"
        if hits:
            return (f"PYTHONPATH puts {entry!r} on sys.path, and its {hits[0]!r} is imported "
                    "in place of the module of that name (or at python's start)")
    return None
