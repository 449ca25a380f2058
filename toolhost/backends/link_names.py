"""Read a command tool's programs under the names their symbolic links end at.

The load-time checks know a program by its name: redis-cli's operands are a command the
server runs, ``tar --to-command`` runs one, ``sh -c`` runs its script. A link under another
name (``myredis -> /usr/bin/redis-cli``, ``./bin/tar -> /usr/bin/tar``) runs the same program,
which reads its arguments the same way, so the checks must also see the name the link ends
at: at load when the program exists then, and again at every call (a link made or moved
after the config loaded). The program after each wrapper (``timeout 5 ./x``) is looked
through too.

Only links, never a ``#!`` line: a script's arguments are the script's, not options of its
interpreter. A multi-call program that does what the name it was started as says
(``ls -> busybox``) keeps the link's name.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from typing import Any

from toolhost.backends.argv import ArgvPlan, Element
from toolhost.backends.code_args import Token, program_name, run_chain
from toolhost.backends.code_wrappers import is_wrapper
from toolhost.backends.command_checks import check_plan, plan_tokens
from toolhost.backends.shebang import program_path
from toolhost.config.model import ToolConfig

__all__ = ["LinkGuard", "Memo", "link_target", "linked_plan", "linked_problems"]

# programs that choose what they are by argv[0]: a link to one is the applet it names
_BY_NAME = frozenset({"busybox", "toybox", "coreutils", "ccache", "sccache", "distcc", "icecc"})
_CACHE_SIZE = 64
_ROUNDS = 8  # a wrapper found through a link may name another linked program: a few rounds


Memo = dict[tuple[str, str | None, str | None], "str | None"]


def link_target(program: str, cwd: str | None, search: str | None,
                memo: Memo | None = None) -> str | None:
    """The name (as the checks compare names) of the program the symbolic link ``program``
    ends at, found as the spawn finds it (a path with a '/' from ``cwd``, else on
    ``search``); None when it is no link, cannot be found, or keeps its own name.
    ``memo``: answers already found in this load (a thousand tools naming ``echo`` search
    the PATH once); a call looks afresh."""
    if memo is None:
        return _link_target(program, cwd, search)
    key = (program, cwd, search)
    if key not in memo:
        memo[key] = _link_target(program, cwd, search)
    return memo[key]


def _link_target(program: str, cwd: str | None, search: str | None) -> str | None:
    try:
        path = program_path(program, cwd, search)
        if path is None or not os.path.islink(path):
            return None
        real = os.path.realpath(path)
    except (OSError, ValueError):  # a NUL in the name, a name too long, a loop
        return None
    name = program_name(real)
    return None if not name or name in _BY_NAME or name == program_name(program) else name


def linked_plan(plan: ArgvPlan, memo: Memo | None = None
                ) -> tuple[ArgvPlan, dict[str, str]] | None:
    """``plan`` with each program on its way to what runs (argv[0], the program each wrapper
    runs, the program after ``find -exec``) named as its link's target, and the names
    changed (key -> the link's target); None when no program there is such a link."""
    name = program_name(plan.program)
    if not is_wrapper(name) and name != "find" \
            and link_target(plan.program, plan.cwd, plan.search_path, memo) is None:
        return None  # argv[0] alone runs, and is no link: no tokens to make (most tools)
    renamed: dict[str, str] = {}
    current = plan
    for _ in range(_ROUNDS):
        tokens = plan_tokens(current)
        added = False
        for at in sorted(_program_places(tokens)):
            token = tokens[at]
            if token.value or token.key in renamed:
                continue
            target = link_target(token.text, plan.cwd, plan.search_path, memo)
            if target is not None:
                renamed[token.key] = target
                added = True
        if not added:
            break
        current = _renamed(plan, renamed)
    return (current, renamed) if renamed else None


_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _program_places(tokens: Sequence[Token]) -> set[int]:
    """argv[0], the programs wrappers run, and the program after each ``find -exec``."""
    places = run_chain(tokens) | {0}
    for at in sorted(places):
        if program_name(tokens[at].text) == "find":
            places |= {j + 1 for j in range(at + 1, len(tokens) - 1)
                       if not tokens[j].value and tokens[j].text in _FIND_RUNS}
    return places


def _renamed(plan: ArgvPlan, names: Mapping[str, str]) -> ArgvPlan:
    return dataclasses.replace(plan, program=names.get(".argv[0]", plan.program),
                               elements=_elements(plan.elements, names))


def _elements(elements: tuple[Element, ...], names: Mapping[str, str]) -> tuple[Element, ...]:
    out = []
    for element in elements:
        if element.group:
            element = dataclasses.replace(element, group=_elements(element.group, names))
        elif element.key in names:
            element = dataclasses.replace(element, source=names[element.key])
        out.append(element)
    return tuple(out)


def linked_problems(plan: ArgvPlan, tool: ToolConfig, names: set[str],
                    opts: Mapping[str, Any], memo: Memo | None = None
                    ) -> tuple[frozenset[tuple[str, str]], list[tuple[str, str, str]]]:
    """The names ``linked_plan`` changed (as a key for a cache) and the load-time problems
    of the plan read under them, each saying which program is a link to which."""
    found = linked_plan(plan, memo)
    if found is None:
        return frozenset(), []
    linked, renamed = found
    texts = {token.key: token.text for token in plan_tokens(plan)}
    said = ", ".join(f"'{texts.get(key, key)}' is a link to {name}"
                     for key, name in renamed.items())
    return frozenset(renamed.items()), [(f"{message} ({said})", key, hint) for message, key, hint
                                        in check_plan(linked, tool, names, opts)]


class LinkGuard:
    """A call's look through the links as they are now (made or moved since the load): the
    first problem of the plan read under their targets, or None. Cached by the names."""

    __slots__ = ("cache", "names", "opts", "plan", "tool")

    def __init__(self, plan: ArgvPlan, tool: ToolConfig, names: set[str],
                 opts: Mapping[str, Any], loaded: frozenset[tuple[str, str]]) -> None:
        self.plan, self.tool, self.names, self.opts = plan, tool, names, opts
        self.cache: dict[frozenset[tuple[str, str]], str | None] = {loaded: None}

    def problem(self) -> str | None:
        found = linked_plan(self.plan)
        key = frozenset(found[1].items()) if found is not None else frozenset()
        if key not in self.cache:
            _, problems = linked_problems(self.plan, self.tool, self.names, self.opts)
            if len(self.cache) >= _CACHE_SIZE:
                self.cache.clear()  # bounded: links change rarely
            self.cache[key] = f"{problems[0][1].lstrip('.')}: {problems[0][0]}" \
                if problems else None
        return self.cache[key]
