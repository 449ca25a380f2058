"""Task runners whose commands come from a file of the project: ``just x`` runs a
justfile's recipe, ``task x`` a Taskfile's, ``tox`` tox.ini's commands, ``rake`` a Rakefile,
``gradle``/``mvn`` the build script, ``uv run``/``poetry run`` build the project first...

Before, the runner was the program: under ``deny: Bash(rm:*)`` a ``just x`` whose recipe is
``rm -rf ~/x`` was allowed, and an earlier call could have written that recipe. These files
are not read here (each runner's language is its own: a justfile, YAML, INI, Ruby, Groovy,
Kotlin, Python...), so the command is not provable where a deny or ask Bash rule exists
(fail closed: denied or asked); with none, nothing could be dodged. ``make`` and the
npm-like runners are read (``later.make``, ``later.package``). ``--version`` and ``--help``
alone read no task. Deny or allow the runner by name (``Bash(just:*)``) as before.
"""

from __future__ import annotations

import shlex

from toolhost.permissions.bash.forms import command_forms
from toolhost.permissions.bash.python_args import python_run
from toolhost.permissions.bash.runners import is_runner, runner_strings
from toolhost.permissions.later.judge import Judge
from toolhost.permissions.later.task_tables import (
    ANY,
    HELP_RUNS,
    INFO,
    MODULES,
    TASK_RUNNERS,
    cargo_builds,
    compose_runs,
    local_install,
    runner_name,
)
from toolhost.permissions.shell.parse import ParsedCommand

__all__ = ["TASK_RUNNERS", "may_name_tasks", "rule_runner", "tasks_reason"]

_MODULES = MODULES
_LOOKED_FOR = frozenset({*TASK_RUNNERS, *_MODULES, "pip", "pip3"})
# a JavaScript package manager runs a package's bin by its name (`yarn nx build`, `pnpm
# turbo x`, `pnpm exec nx`): the word after it or after its run/exec word
_JS = frozenset({"yarn", "yarnpkg", "pnpm", "bun", "npm"})
_JS_RUN = frozenset({"run", "exec", "dlx", "x"})
_FIRST_WORD = frozenset({"bun"})  # runners whose subcommand is their first word, only
_COMPOSERS = frozenset({"docker", "podman", "nerdctl"})  # (only their `compose` up/run...)

# the characters that end a word of a line, for the quick look (a C translate and split)
_TO_SPACE = str.maketrans(dict.fromkeys("/;&|()<>`'\"$={}!\\", " "))


def may_name_tasks(text: str) -> bool:
    """Whether a line's text may name a task runner (a quick look, ~1 us, before its words;
    ``text`` holds the line and its words with quotes removed: ``j''ust`` is seen)."""
    words = text.translate(_TO_SPACE).split()
    return not _LOOKED_FOR.isdisjoint(words) or any(
        w[:2] == "-m" and w[2:] in _LOOKED_FOR if w[:1] == "-" else
        not w.isalpha() and runner_name(w) is not None for w in words)  # (tox4, gradle-8)


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
    spared = {runner_name(f[0]) for f in forms if _spared(f) and (
        f == values[len(values) - len(f):])}
    for form in forms:
        name = runner_name(form[0])
        if name is not None and name not in spared and _reads_project(name, form) and (
                not _a_setting(form, values)):
            return name
        base = form[0].rsplit("/", 1)[-1]
        if depth and is_runner(base):
            for text in runner_strings(base, form):
                try:
                    handed = tuple(shlex.split(text))
                except ValueError:
                    handed = tuple(text.split())
                found = _runs_tasks(handed, depth - 1) if handed else None
                if found is not None:
                    return found
    return None


def _a_setting(form: tuple[str, ...], values: tuple[str, ...]) -> bool:
    """Whether ``form`` is only the value of a dotted setting among ``values`` (``npm pkg set
    scripts.test=jest``, ``git config alias.t=tox``): a name written, not run (the forms
    read any ``K=V`` word's value as a command, fail closed for the deny rules)."""
    if form[0] in values:
        return False
    text = " ".join(form)
    sources = [v.partition("=")[0] for v in values if v.partition("=")[2].startswith(text)]
    return bool(sources) and all("." in k and k[:1] != "-" for k in sources)


def _reads_project(name: str, form: tuple[str, ...]) -> bool:
    """Whether ``form`` (whose program ``runner_name`` reads as ``name``) runs what a file
    of the project says."""
    if name == "cargo":
        return cargo_builds(form)
    if name in _COMPOSERS:
        return compose_runs(form)
    subs = TASK_RUNNERS.get(name)
    if name in _FIRST_WORD:  # (`bun test`, not `bun run test`: a script, later.package's)
        return next((w for w in form[1:] if w[:1] != "-"), None) in (subs or ())
    return (subs is ANY or (subs is not None and not subs.isdisjoint(form[1:]))
            or local_install(name, form))


def _named(word: str) -> bool:
    """Whether a word may name a runner (``/usr/bin/just``, ``tox``, ``tox4``, ``-mtox``)."""
    name = word.rsplit("/", 1)[-1]
    return name in _LOOKED_FOR or (name[:2] == "-m" and name[2:] in _LOOKED_FOR) or (
        runner_name(name) is not None)


def _spared(form: tuple[str, ...]) -> bool:
    """Whether the runner reads no file of the project: its ``--version``/``--help`` alone
    (``pytest --help`` loads conftest.py: not spared), ``cmake -E``."""
    name = runner_name(form[0])
    return (bool(form[1:]) and set(form[1:]) <= INFO and (
        name not in HELP_RUNS or "--help" not in form)) or (
        name == "cmake" and form[1:2] == ("-E",))


def _as_runner(form: tuple[str, ...]) -> tuple[str, ...]:
    """``python -m tox ARGS`` as ``tox ARGS``, ``yarn nx ARGS`` as ``nx ARGS`` (the form as
    it is when it runs no runner so)."""
    if form and " " in form[0]:  # (env -S 'just x': the string's words)
        form = (*form[0].split(), *form[1:])
    name = form[0].rsplit("/", 1)[-1] if form else ""
    run = python_run(form)
    if run is not None:
        runner = _MODULES.get(run.module) if run.module is not None else None
        return (runner, *form[run.rest:]) if runner else form
    if name in _JS:
        words = [w for w in form[1:] if not w.startswith("-")][:2]
        if words and words[0] in _JS_RUN:
            words = words[1:]
        if words and runner_name(words[0]) is not None:
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
    name = runner_name(form[0])
    if name is None or _spared(form) or not _reads_project(name, form):
        return None
    return name
