"""Task runners whose commands come from a file of the project (round 24): ``just x`` runs a
justfile's recipe, ``task x`` a Taskfile's, ``tox`` tox.ini's commands, ``rake`` a Rakefile,
``gradle``/``mvn`` the build script, ``uv run``/``poetry run`` build the project first...

Before, the runner was the program: under ``deny: Bash(rm:*)`` a ``just x`` whose recipe is
``rm -rf ~/x`` was allowed, and an earlier call could have written that recipe. These files
are not read here (each runner's language is its own: a justfile, YAML, INI, Ruby, Groovy,
Kotlin, Python...), so the command is not provable where a deny or ask Bash rule exists
(fail closed: denied or asked); with none, nothing could be dodged. ``make`` and the
npm-like runners are read (``latermake``, ``laterpackage``). ``--version`` and ``--help``
alone read no task. Deny or allow the runner by name (``Bash(just:*)``) as before.
"""

from __future__ import annotations

import re
import shlex

from toolhost.permissions.content import command_forms
from toolhost.permissions.later_judge import Judge
from toolhost.permissions.runners import is_runner, runner_strings
from toolhost.permissions.shell import ParsedCommand

__all__ = ["TASK_RUNNERS", "may_name_tasks", "rule_runner", "tasks_reason"]

_ANY = frozenset({""})  # every use of the program runs the project's tasks
# program -> the subcommands that run (or build, and so run) what the project's files say
TASK_RUNNERS: dict[str, frozenset[str]] = {
    **dict.fromkeys((
        "just", "task", "go-task", "tox", "nox", "turbo", "nx", "rake", "invoke", "inv",
        "poe", "gradle", "gradlew", "mvn", "mvnw", "mvnd", "ant", "sbt", "lein", "mix",
        "gulp", "grunt", "jake", "mage", "scons", "waf", "ninja", "samu", "bazel",
        "bazelisk", "buck", "buck2", "pants", "earthly", "moon", "rush", "lerna",
        "cargo-make", "makers", "cake", "composer", "hatch", "pdm", "doit", "pynt", "meson",
        "poethepoet"), _ANY),
    "pixi": frozenset({"run"}),
    "uv": frozenset({"run", "sync", "build"}),
    "poetry": frozenset({"run", "install", "build", "sync"}),
    "cargo": frozenset({"make", "xtask"}),
    "deno": frozenset({"task"}),
    "cmake": _ANY,  # (configuring runs CMakeLists.txt's execute_process; -E is a tool)
    "rye": frozenset({"run", "sync", "build"}),
    "pipenv": frozenset({"run", "install", "sync"}),  # (Pipfile's [scripts])
    "mise": frozenset({"run", "r", "tasks", "watch"}),
    "go": frozenset({"generate"}),  # (the //go:generate lines of the project's sources)
    "ctest": _ANY,
}
# what reads no task of the project's: the runner's version or help, alone
_INFO = frozenset({"--version", "--help"})
# python -m MODULE: the runner that module is
_MODULES = {"tox": "tox", "nox": "nox", "invoke": "invoke", "poethepoet": "poe", "pdm": "pdm",
            "hatch": "hatch", "poetry": "poetry", "uv": "uv", "SCons": "scons", "doit": "doit",
            "pipenv": "pipenv", "mesonbuild.mesonmain": "meson", "ninja": "ninja",
            "cmake": "cmake"}
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*")
_PYTHON_VALUED = frozenset({"-X", "-W", "--check-hash-based-pycs"})  # (python -X dev -m tox)
_LOOKED_FOR = frozenset({*TASK_RUNNERS, *_MODULES})
# a JavaScript package manager runs a package's bin by its name (`yarn nx build`, `pnpm
# turbo x`, `pnpm exec nx`): the word after it or after its run/exec word
_JS = frozenset({"yarn", "yarnpkg", "pnpm", "bun", "npm"})
_JS_RUN = frozenset({"run", "exec", "dlx", "x"})



# the characters that end a word of a line, for the quick look (a C translate and split)
_TO_SPACE = str.maketrans(dict.fromkeys("/;&|()<>`'\"$={}!\\", " "))


def may_name_tasks(text: str) -> bool:
    """Whether a line's text may name a task runner (a quick look, ~1 us, before its words;
    ``text`` holds the line and its words with quotes removed: ``j''ust`` is seen)."""
    words = text.translate(_TO_SPACE).split()
    return not _LOOKED_FOR.isdisjoint(words) or any(
        w[:2] == "-m" and w[2:] in _LOOKED_FOR for w in words if w[:1] == "-")


def tasks_reason(parsed: ParsedCommand, judge: Judge) -> str | None:
    """Why a task runner the line runs cannot be proven (None: it runs none, or no deny or
    ask Bash rule exists): as a program, or in a command line another program is handed
    (``git rebase -x 'just x'``, ``hyperfine 'tox'``, ``watchexec -- just x``)."""
    guarded: bool | None = None
    for words in parsed.words + parsed.nested_words:
        values = tuple(w.value for w in words)
        if not any(_named(p) for v in values  # (a set lookup a word; --exec=tox too)
                   for p in (v.replace("=", " ").split() if " " in v or "=" in v else (v,))):
            continue
        if guarded is None:
            guarded = judge([None])
        if not guarded:  # no deny or ask Bash rule: nothing to dodge
            return None
        name = _runs_tasks(values, 1)
        if name is not None:
            return (f"it runs {name}, whose tasks come from the project's files (an "
                    "earlier call may have written them), which are not read here")
    return None


def _runs_tasks(values: tuple[str, ...], depth: int) -> str | None:
    """The task runner ``values`` (one command's words) runs, or a command line it hands
    on runs (``depth`` more levels of those); None: none."""
    forms = [_as_runner(f) for f in command_forms(values) if f]
    # (the forms also drop words that may be options' values, `cmake -E echo` read as
    # `cmake echo` too: a runner is spared only by its form as written, wrappers off)
    spared = {f[0].rsplit("/", 1)[-1] for f in forms if _spared(f) and (
        f == values[len(values) - len(f):])}
    for form in forms:
        name = form[0].rsplit("/", 1)[-1]
        subs = TASK_RUNNERS.get(name)
        if subs is not None and name not in spared and (
                subs is _ANY or set(form[1:]) & subs):
            return name
        if depth and is_runner(name):
            for text in runner_strings(name, form):
                try:
                    handed = tuple(shlex.split(text))
                except ValueError:
                    handed = tuple(text.split())
                found = _runs_tasks(handed, depth - 1) if handed else None
                if found is not None:
                    return found
    return None


def _named(word: str) -> bool:
    """Whether a word may name a runner (``/usr/bin/just``, ``tox``, ``-mtox``)."""
    name = word.rsplit("/", 1)[-1]
    return name in _LOOKED_FOR or (name[:2] == "-m" and name[2:] in _LOOKED_FOR)


def _spared(form: tuple[str, ...]) -> bool:
    """Whether the runner reads no task: its ``--version``/``--help`` alone, ``cmake -E``."""
    return (bool(form[1:]) and set(form[1:]) <= _INFO) or (
        form[0].rsplit("/", 1)[-1] == "cmake" and form[1:2] == ("-E",))


def _as_runner(form: tuple[str, ...]) -> tuple[str, ...]:
    """``python -m tox ARGS`` as ``tox ARGS``, ``yarn nx ARGS`` as ``nx ARGS`` (the form as
    it is when it runs no runner so)."""
    name = form[0].rsplit("/", 1)[-1] if form else ""
    if _PYTHON.fullmatch(name):
        for k, word in enumerate(form[1:], 1):
            if form[k - 1] in _PYTHON_VALUED:
                continue  # (an option's value)
            module = form[k + 1] if word == "-m" and k + 1 < len(form) else (
                word[2:] if word.startswith("-m") and len(word) > 2 else None)
            if module is not None:
                runner = _MODULES.get(module)
                return (runner, *form[k + 2 - (word != "-m"):]) if runner else form
            if not word.startswith("-"):
                return form  # (a script file)
    if name in _JS:
        words = [w for w in form[1:] if not w.startswith("-")][:2]
        if words and words[0] in _JS_RUN:
            words = words[1:]
        if words and words[0] in TASK_RUNNERS:
            return form[form.index(words[0], 1):]
    return form


def rule_runner(spec: str) -> str | None:
    """The task runner a Bash rule's command (``just:*``, ``uv run pytest``) names, whose
    tasks this module does not read (None: none): under a deny or ask Bash rule, an allow
    rule naming it never allows (lint's ``never-allows``)."""
    words = spec.replace(":*", " ").split()
    if not words:
        return None
    form = _as_runner(tuple(words))
    name = form[0].rsplit("/", 1)[-1]
    subs = TASK_RUNNERS.get(name)
    if subs is None or _spared(form) or not (subs is _ANY or set(form[1:]) & subs):
        return None
    return name
