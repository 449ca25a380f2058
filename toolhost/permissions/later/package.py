"""A package's scripts: ``npm test``, ``npm run x``, ``yarn x``, ``pnpm x``,
``bun run x`` run command lines written in ``package.json``, judged as Bash commands.

Before, the runner was the program: under ``deny: Bash(rm:*)`` an ``npm test`` whose script
is ``rm -rf ~/x`` was allowed, and an earlier call could have written that script. Now the
``package.json`` the runner reads (the nearest one above the directory, as npm finds it) is
read when the call is decided, bounded and never blocking, and every script the command runs
(``preX``, ``X``, ``postX``; ``npm start``'s ``node server.js``; the project's own install
lifecycle for ``npm install``/``ci``; ``pack``, ``publish``, ``version``'s) is judged as a
Bash command line with the arguments the runner hands it. A deny or ask Bash rule meeting
one, a line whose programs cannot be proven, or what the text alone does not say (an option
choosing another package or shell, an ``.npmrc``/``.yarnrc`` naming a shell, a
``package.json`` that cannot be read or that the line may write first) makes the command not
provable. Only where a deny or ask Bash rule exists: with none, nothing could be dodged.
What a dependency's own install scripts run stays the program (third-party code the user
chose to install).
"""

from __future__ import annotations

import json
import os
import re
import shlex
from contextvars import ContextVar
from functools import lru_cache

from toolhost.permissions.bash.budget import line_fact, scan_line
from toolhost.permissions.bash.forms import command_forms
from toolhost.permissions.later.judge import Judge, Unprovable, first_unproven
from toolhost.permissions.later.makefile import read_text
from toolhost.permissions.later.package_files import SHELLISH, install_reason, rc_reason
from toolhost.permissions.later.where import MOVES
from toolhost.permissions.shell.parse import ParsedCommand, Word

__all__ = ["RUNNERS", "scripts_reason"]

RUNNERS = frozenset({"npm", "pnpm", "yarn", "yarnpkg", "bun", "node"})

_RUN = frozenset({"run", "run-script", "rum", "urn"})
_INSTALL = frozenset({"install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta",
                      "isntal", "isntall", "ci", "clean-install", "install-clean", "ic", "add",
                      "install-test", "it", "install-ci-test", "cit", "rebuild", "rb", "link",
                      "ln", "update", "up", "upgrade", "udpate", "dedupe", "ddp", "prune",
                      "audit"})  # (audit fix, update, link... install and run the lifecycle)
# commands that run the scripts of other packages of a workspace (yarn workspace b test)
_ELSEWHERE = frozenset({"workspace", "workspaces", "recursive", "multi", "m"})
# the lifecycle a command runs of the project's own package.json (npm's docs/using-npm/scripts)
_LIFECYCLES = {
    "install": ("preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare",
                "postprepare"),
    "pack": ("prepack", "prepare", "postpack"),
    "publish": ("prepublishOnly", "prepack", "prepare", "postpack", "publish", "postpublish"),
    "version": ("preversion", "version", "postversion"),
    "restart": ("prerestart", "restart", "postrestart", "prestop", "stop", "poststop",
                "prestart", "start", "poststart"),
}
_NAMED = {"t": "test", "tst": "test", "test": "test", "start": "start", "stop": "stop"}
# options that only change what the runner prints or whether a missing script is an error
# (full names only: npm reads a unique abbreviation of any option, `--scr=x` too; a value
# only after `=`: `--loglevel silent test` would read `silent` as the command)
_QUIET = re.compile(r"-[sqdDEOP]|-dd|-ddd|--silent|--quiet|--verbose|--if-present|--no-color"
                    r"|--colou?r=\w+|--loglevel=\w+|--no-progress|--json|--parseable"
                    r"|--foreground-scripts|--reporter=\w+|--stream|--ignore-scripts"
                    r"|--no-audit|--no-fund|--legacy-peer-deps|--frozen-lockfile|--pure-lockfile"
                    r"|--immutable|--prefer-offline|--offline|--production|--prod|--dev"
                    r"|--omit=\w+|--include=\w+|--no-save|--save(?:-dev|-exact|-optional|-peer)?"
                    r"|--strict-peer-dependencies|--no-optional|--watch|--coverage|--ci")
# configuration the runner reads from the environment or rc files that names its shell or
# moves it to another package (npm_config_script_shell=/tmp/x npm test)
_CONFIG_ENV = re.compile(r"(?i)\b(?:npm_config_|yarn_|pnpm_config_|bun_config_|npm_package_"
                         r"|COREPACK_)\w*|\bBUN_\w*")
_FOLDER_OPTIONS = {"npm": ("--prefix", "-C"), "pnpm": ("-C", "--dir"), "yarn": ("--cwd",),
                   "yarnpkg": ("--cwd",), "bun": ("--cwd",)}
_FEEDERS = frozenset({"xargs", "parallel", "find"})  # (they add words to the runner's)
_SCRIPTING = _RUN | _INSTALL | frozenset(_NAMED) | frozenset(_LIFECYCLES)
_DEPTH: ContextVar[int] = ContextVar("package_depth", default=0)
_MAX_DEPTH = 3


def scripts_reason(parsed: ParsedCommand, command: str, cwd: str, judge: Judge,
                   unprovable: Unprovable) -> str | None:
    """Why a package script the line runs cannot be proven (None: it runs none, or every
    script line it may run meets no deny or ask Bash rule and is proven by ``unprovable``)."""
    if not judge([None]):  # no deny or ask Bash rule: nothing to dodge
        return None
    segments = parsed.words + parsed.nested_words
    for words in segments:
        if not any(w.value.rsplit("/", 1)[-1] in RUNNERS for w in words):
            continue
        values = tuple(w.value for w in words)
        forms = [f for f in command_forms(values) if f and f[0].rsplit("/", 1)[-1] in RUNNERS
                 and f == values[len(values) - len(f):]]  # (the runner past its wrappers)
        for form in dict.fromkeys(forms):
            fed = {w.rsplit("/", 1)[-1] for w in values[:len(values) - len(form)]} & _FEEDERS
            if fed:  # (echo test | xargs npm run: the script's name comes from the input)
                return f"it runs {form[0].rsplit('/', 1)[-1]} with words {fed.pop()} adds"
            why = _one_runner(words, form, segments, parsed, command, cwd, judge, unprovable)
            if why is not None:
                return f"it runs {form[0].rsplit('/', 1)[-1]}, and {why}"
    return None


def _one_runner(words: tuple[Word, ...], form: tuple[str, ...],
                segments: list[tuple[Word, ...]], parsed: ParsedCommand, command: str,
                cwd: str, judge: Judge, unprovable: Unprovable) -> str | None:
    program = form[0].rsplit("/", 1)[-1]
    if program == "node":  # node 22's `node --run x` (no pre or post scripts)
        form = _node_run(form)
        if not form:
            return None
    where, args = _moved_to(program, form[1:])
    options, positional, passed = _split_args(program, args)
    runs = _what_runs(program, positional, options)
    if runs is None:
        unknown = {w.value for w in words[len(words) - len(form) + 1:] if not w.plain}
        if positional and positional[0] in unknown and program != "node":  # (npm $X)
            return "its command is not known before it runs (it may name a script)"
        lead = next((a for a in args if not a.startswith("-")), "")
        first = args.index(lead) if lead else len(args)
        odd = next((a for a in args[:first] if not _QUIET.fullmatch(a)), None)
        if odd is not None and set(positional) & _SCRIPTING:  # (npm -C dir run x)
            return f"its option {odd[:40]!r} may take the next word: which command it runs " \
                   "is not known"
        return None
    names, extra = runs
    if positional and positional[0] in _ELSEWHERE:
        return f"its {positional[0]!r} runs the scripts of another package of the workspace"
    if not all(w.plain for w in words):
        return "one of its words is not known before it runs"
    odd = next((a for a in options if not _QUIET.fullmatch(a)), None)
    if odd is not None:
        return f"its option {odd[:40]!r} may change which package or shell runs the scripts"
    if line_fact(parsed, "package_env", lambda: any(
            _CONFIG_ENV.search(w.value) for s in segments for w in s)) or _environment_names():
        return "its configuration is set from the environment (a shell or package it names)"
    if (where is None or not os.path.isabs(where)) and line_fact(
            parsed, "moves", lambda: any(w.value in MOVES for s in segments for w in s)):
        return "it runs after a cd: which package.json it reads is not known"
    root = _package_root(os.path.join(cwd, os.path.expanduser(where or ".")),
                         stop_at_modules=program == "npm")
    if root is None:
        return None  # no package: the runner stops (a missing script is an error)
    why = rc_reason(root)
    if why is not None:
        return why
    scan_line(parsed)  # (for each runner)
    if any("package.json" in w.value for s in segments if s is not words for w in s) or any(
            os.path.basename(f) == "package.json" for _, out, _ in parsed.writes for f in out):
        return "the line may write package.json before it is read"
    text, there = read_text(os.path.join(root, "package.json"))
    if text is None:
        return "its package.json cannot be read here" if there else None
    scripts = _scripts(text)
    if scripts is None:
        return "its package.json's scripts cannot be read (not an object of strings)"
    if names == list(_LIFECYCLES["install"]):
        why = install_reason(text, root)
        if why is not None:
            return why
    lines = _lines(names, extra + passed, scripts, root)
    depth = _DEPTH.get()
    if depth >= _MAX_DEPTH and lines:
        return "it runs package scripts too deep to read"
    token = _DEPTH.set(depth + 1)
    try:
        return first_unproven(((f"its script {name!r} ({line[:80]!r})", line)
                               for name, line in lines), root, judge, unprovable)
    finally:
        _DEPTH.reset(token)


def _environment_names() -> bool:
    """Whether a name of the environment configures a runner's shell, scripts or workspace
    (``npm_config_script_shell``): one search of all the names joined (a search
    of each name cost ~2 us a name, a decision)."""
    return _ENV_SHELL.search("\0".join(os.environ)) is not None


# a configuration name (_CONFIG_ENV at a name's start) holding a SHELLISH word; the names
# are joined by NUL, the one character no name can hold (a name may hold a newline)
_ENV_SHELL = re.compile(r"(?i)(?:^|\0)(?:npm_config_|yarn_|pnpm_config_|bun_config_|npm_package_"
                        r"|COREPACK_|BUN_)[^\0]*?(?:" + SHELLISH.pattern.removeprefix("(?i)")
                        + ")")


def _moved_to(program: str, args: tuple[str, ...]) -> tuple[str | None, tuple[str, ...]]:
    """The package folder an option names (``npm --prefix x``, ``npm -C x``, ``pnpm --dir x``,
    ``yarn --cwd x``; None: none), and the other words. npm reads its options anywhere
    before ``--``; yarn, pnpm and bun only before the command (later ones are the script's)."""
    names = _FOLDER_OPTIONS.get(program, ())
    where: str | None = None
    rest: list[str] = []
    k = 0
    while k < len(args):
        word = args[k]
        if word == "--" or (program != "npm" and not word.startswith("-")):
            rest.extend(args[k:])
            break
        key, eq, value = word.partition("=")
        if key in names:
            if not eq:
                k += 1
                value = args[k] if k < len(args) else ""
            where = os.path.join(where or ".", os.path.expanduser(value))
        else:
            rest.append(word)
        k += 1
    return where, tuple(rest)


def _node_run(form: tuple[str, ...]) -> tuple[str, ...]:
    """``node --run x ARGS`` as ``node run x ARGS`` (empty: node runs no script)."""
    for k, word in enumerate(form[1:], 1):
        if word.startswith("--run="):
            return ("node", "run", word[6:], *form[k + 1:])
        if word == "--run":
            return ("node", "run", *form[k + 1:])
        if word == "--" or not word.startswith("-"):
            return ()  # (a script file: the program)
    return ()


def _split_args(program: str, args: tuple[str, ...]) -> tuple[list[str], list[str], list[str]]:
    """(the runner's own options, its positional words, what it hands the script as it is).
    npm reads every option before ``--`` as its configuration; yarn, pnpm and bun hand the
    script every word after the script's name (``yarn test --watch``)."""
    options: list[str] = []
    positional: list[str] = []
    for k, word in enumerate(args):
        if word == "--":
            return options, positional, list(args[k + 1:])
        if program != "npm" and _script_named(positional):
            return options, positional, list(args[k:])
        (options if word.startswith("-") else positional).append(word)
    return options, positional, []


def _script_named(positional: list[str]) -> bool:
    """Whether yarn's, pnpm's or bun's words so far name the script (``run x`` or ``x``)."""
    return bool(positional) and (positional[0] not in _RUN or len(positional) > 1)


def _what_runs(program: str, positional: list[str],
               options: list[str]) -> tuple[list[str], list[str]] | None:
    """The scripts the command runs (their names: the first is the one handed the extra
    arguments) and its positional arguments for it; None: it runs none of the project's."""
    if not positional:  # a bare `yarn`/`pnpm`/`bun` installs; `npm` alone prints help
        return (list(_LIFECYCLES["install"]), []) if program in ("yarn", "yarnpkg") else None
    command, rest = positional[0], positional[1:]
    if program == "bun":  # bun's own test runner, installer...: only `bun run X` is a script
        return (_around(rest[0]), rest[1:]) if command == "run" and rest else None
    if program == "node":
        return ([rest[0]], rest[1:]) if rest else None
    if command in _RUN:
        return (_around(rest[0]), rest[1:]) if rest else None  # (bare: lists the scripts)
    if command in _NAMED:
        return _around(_NAMED[command]), rest
    if command in _INSTALL:  # (a global install of packages runs no script of the project's)
        global_ = {"-g", "--global", "--location=global"} & set(options)
        return None if global_ and rest else (list(_LIFECYCLES["install"]), [])
    if command in _LIFECYCLES:
        return list(_LIFECYCLES[command]), []
    if command in _ELSEWHERE and program != "npm":
        return [], []  # (refused by the caller: another package's scripts)
    if program in ("yarn", "yarnpkg", "pnpm"):  # `yarn x`: the script x where there is one
        return _around(command), rest
    return None


def _around(name: str) -> list[str]:
    return [name, f"pre{name}", f"post{name}"]


def _lines(names: list[str], extra: list[str], scripts: dict[str, str],
           root: str) -> list[tuple[str, str]]:
    """(name, command line) of each script run; the first name gets the extra arguments,
    quoted as npm quotes them for the shell."""
    lines: list[tuple[str, str]] = []
    for k, name in enumerate(names):
        line = scripts.get(name)
        if line is None and name == "start" and os.path.exists(os.path.join(root, "server.js")):
            line = "node server.js"  # (npm start without a start script)
        if line is None:
            continue
        if k == 0 and extra:
            line = f"{line} {' '.join(shlex.quote(a) for a in extra)}"
        lines.append((name, line))
    return lines


@lru_cache(maxsize=64)
def _scripts(text: str) -> dict[str, str] | None:
    """package.json's ``scripts`` (remembered by the file's text; read-only)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(data, dict):
        return None
    scripts = data.get("scripts", {})
    if not isinstance(scripts, dict) or not all(isinstance(v, str) for v in scripts.values()):
        return None
    return scripts


def _package_root(cwd: str, stop_at_modules: bool) -> str | None:
    """The directory whose package.json the runner reads: the nearest above ``cwd`` holding
    one (or a ``node_modules``, where npm stops looking: None, nothing to run). yarn, pnpm
    and bun are not known to stop there: they are read as going on up."""
    here = os.path.abspath(cwd)
    while True:
        if os.path.exists(os.path.join(here, "package.json")):
            return here
        if stop_at_modules and os.path.isdir(os.path.join(here, "node_modules")):
            return None
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent
