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

from toolhost.permissions.content import command_forms
from toolhost.permissions.later_judge import Judge
from toolhost.permissions.shell import ParsedCommand

__all__ = ["TASK_RUNNERS", "looks_like_tasks", "tasks_reason"]

_ANY = frozenset({""})  # every use of the program runs the project's tasks
# program -> the subcommands that run (or build, and so run) what the project's files say
TASK_RUNNERS: dict[str, frozenset[str]] = {
    **dict.fromkeys((
        "just", "task", "go-task", "tox", "nox", "turbo", "nx", "rake", "invoke", "inv",
        "poe", "gradle", "gradlew", "mvn", "mvnw", "mvnd", "ant", "sbt", "lein", "mix",
        "gulp", "grunt", "jake", "mage", "scons", "waf", "ninja", "samu", "bazel",
        "bazelisk", "buck", "buck2", "pants", "earthly", "moon", "rush", "lerna",
        "cargo-make", "makers", "cake", "composer", "hatch", "pdm", "doit", "pynt"), _ANY),
    "pixi": frozenset({"run"}),
    "uv": frozenset({"run", "sync", "build"}),
    "poetry": frozenset({"run", "install", "build", "sync"}),
    "cargo": frozenset({"make", "xtask"}),
    "deno": frozenset({"task"}),
    "cmake": frozenset({"--build", "--workflow"}),
    "meson": frozenset({"compile", "test", "install", "dist"}),
    "ctest": _ANY,
}
# what reads no task of the project's: the runner's version or help, alone
_INFO = frozenset({"--version", "--help"})
_NAMES = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, TASK_RUNNERS), key=len,
                                                reverse=True)) + r")\b")


def looks_like_tasks(text: str) -> bool:
    """Whether the line's text names a task runner (a quick look before its forms)."""
    return _NAMES.search(text) is not None


def tasks_reason(parsed: ParsedCommand, judge: Judge) -> str | None:
    """Why a task runner the line runs cannot be proven (None: it runs none, or no deny or
    ask Bash rule exists)."""
    if not judge([None]):  # no deny or ask Bash rule: nothing to dodge
        return None
    for words in parsed.words + parsed.nested_words:
        values = tuple(w.value for w in words)
        if not any(v.rsplit("/", 1)[-1] in TASK_RUNNERS for v in values):
            continue
        for form in command_forms(values):
            name = form[0].rsplit("/", 1)[-1] if form else ""
            subs = TASK_RUNNERS.get(name)
            if subs is None or (form[1:] and set(form[1:]) <= _INFO):
                continue
            if subs is _ANY or set(form[1:]) & subs:
                return (f"it runs {name}, whose tasks come from the project's files (an "
                        "earlier call may have written them), which are not read here")
    return None
