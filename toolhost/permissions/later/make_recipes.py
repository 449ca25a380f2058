"""The recipe lines a make may run (``later.make``): the rules its goals reach, each
recipe line expanded as make would (``later.make_expand``). Any name make may splice into a line as
is (a goal, a target, a pattern's words, a vpath directory) must be a plain name."""

from __future__ import annotations

import os
import re

from toolhost.permissions.later.make_expand import Scope, expand
from toolhost.permissions.later.makefile import Makefile, Rule, Unknown

__all__ = ["recipes"]

_MAX_LINES = 256
_SAFE_NAME = re.compile(r"[A-Za-z0-9_./%+,@:-]*")


def recipes(mk: Makefile, goals: list[str], given: dict[str, str], where: str,
            env_set: frozenset[str] | None, env_wins: bool,
            makefiles: list[str]) -> list[str]:
    """The recipe lines ``goals`` (none: the default goal) may run, each expanded as make
    would: a reached rule's, every pattern, suffix and ``.DEFAULT`` rule's, and those of the
    rules remaking each Makefile read (``makefiles``)."""
    made = {"MAKE": "make", "CURDIR": where, "MAKECMDGOALS": " ".join(goals),
            "MAKELEVEL": "0", "MAKEFILE_LIST": "Makefile", ".DEFAULT_GOAL": ""}
    scope = Scope(mk, given, made, env_set, env_wins)
    for goal in goals:
        if not _SAFE_NAME.fullmatch(goal):
            raise Unknown(f"the goal {goal!r} is a name make may splice into a recipe")
    for raw in mk.vpaths:  # a file found there is named dir/file in $< $^ (spliced as is)
        for text in expand(raw, scope, {}):
            if not all(_SAFE_NAME.fullmatch(w) for w in text.replace(":", " ").split()):
                raise Unknown(f"a vpath directory {text.strip()[:60]!r} may be spliced into a "
                              "recipe")
    named: list[tuple[list[str], Rule]] = []
    for rule in mk.rules:
        targets: list[str] = []
        for raw in rule.targets:
            for text in expand(raw, scope, {}):
                if any(ch in text for ch in ":;=#"):
                    raise Unknown(f"the target {raw!r} becomes {text!r}")
                targets += text.split()
        if rule.always:  # (a pattern rule's names make $@ $< $* of whatever it makes)
            for word in [*targets, *(w for raw in rule.prereqs
                                     for t in expand(raw, scope, {}) for w in t.split())]:
                if not _SAFE_NAME.fullmatch(word):
                    raise Unknown(f"the pattern {word[:60]!r} may be spliced into a recipe")
        named.append((targets, rule))
    if not goals:  # .DEFAULT_GOAL (each value it may hold, expanded), else the first target
        goals = [w for v in mk.values.get(".DEFAULT_GOAL", []) for t in expand(v, scope, {})
                 for w in t.split()]
        if not goals or ".DEFAULT_GOAL" in mk.in_branch:
            goals += _first_targets(named)
    # make first brings each Makefile it read up to date (running the rules that make it)
    reached, todo = set(), [*goals, *makefiles]
    merged: dict[str, list[str]] = {}  # a target's prerequisites from every rule naming it
    while todo:
        target = todo.pop()
        if target in reached:
            continue
        if not _SAFE_NAME.fullmatch(target):  # ($@, $<, a pattern's stem: spliced as is)
            raise Unknown(f"the target {target[:60]!r} is a name make may splice into a recipe")
        reached.add(target)
        for targets, rule in named:
            if target in targets:
                for raw in rule.prereqs:
                    for text in expand(raw, scope, {"@": target}):
                        todo += text.split()
                        merged.setdefault(target, []).extend(text.split())
    every = mk.second_expansion  # (prerequisites expanded twice: not followed)
    out: list[str] = []
    for targets, rule in named:
        hits = [t for t in targets if t in reached] or (
            targets[:1] if rule.always or every else [])
        for target in hits:
            # $< $^ $+ $? hold the prerequisites of every rule naming the target, in an order
            # not followed here (x: rm, then x: echo ; $(lastword $^) runs rm)
            words = merged.get(target, [])
            own = " ".join(rule.prereqs)
            if "$" in own or set(words) != set(own.split()):
                own = "${MAKE_AUTOMATIC}"
            auto = {} if rule.always else {"@": target, "@F": os.path.basename(target),
                                           "@D": os.path.dirname(target) or ".",
                                           "<": own.split(" ", 1)[0], "^": own, "+": own,
                                           "?": own}
            texts = [_strip(line) for line in rule.recipe]
            for line in (["\n".join(texts)] if mk.oneshell and texts else texts):
                out += expand(line, scope, auto)
                if len(out) > _MAX_LINES:
                    raise Unknown("its recipes are too many to judge")
    return [line for line in dict.fromkeys(out) if line.strip()]


def _first_targets(named: list[tuple[list[str], Rule]]) -> list[str]:
    """The target make takes as its goal when none is given: the first rule's first target
    (not a pattern, not a ``.NAME``); each one a conditional holds may be the first."""
    out: list[str] = []
    for targets, rule in named:
        first = [t for t in targets[:1] if not t.startswith(".") or "/" in t]
        if rule.always or not first:
            continue
        out += first
        if not rule.in_branch:
            break
    return out


def _strip(line: str) -> str:
    """A recipe line without make's ``@`` (quiet), ``-`` (ignore errors), ``+`` prefixes."""
    return line.lstrip(" \t@-+")
