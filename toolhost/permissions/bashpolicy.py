"""The Bash part of a compiled policy: which Bash rules a command can meet, what cannot be
proven about a command, and a compound command allowed one program at a time.

``toolhost.permissions.policy`` loads this module with the first Bash rule or Bash call. It
brings the shell parser and the content matchers (``shell``, ``bashprog``, ``content``),
which a config without such rules never needs: ``serve`` and ``validate`` start without
them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from toolhost.permissions import content
from toolhost.permissions.bashprog import analyze_line
from toolhost.permissions.content import BashMatcher, command_forms, cover_steps, fed_forms
from toolhost.permissions.decision import Decision
from toolhost.permissions.expr import ExprError
from toolhost.permissions.shell import ShellSyntaxError, parse_command

if TYPE_CHECKING:
    from toolhost.permissions.rules import CompiledRule

__all__ = ["allow_each_command", "command_positions", "unprovable"]


def command_positions(command: Any, unkeyed: Sequence[int],
                      by_word: Mapping[str, Sequence[int]], count: int) -> list[int]:
    """Positions of the Bash rules that can match ``command``: those bucketed under one of its
    first words, and the ``unkeyed`` ones (all ``count`` rules if it does not parse)."""
    try:
        parsed = parse_command(command) if isinstance(command, str) else None
    except ShellSyntaxError:
        parsed = None
    if parsed is None:
        return list(range(count))
    firsts = {seg.split(" ", 1)[0] for seg in parsed.joined}
    forms = [form for words in parsed.segments + parsed.nested  # deny rules see through
             for form in command_forms(words)]  # sudo, env, ...
    if content.TOO_MANY_FORMS in forms:  # every rule may match what was cut off
        return list(range(count))
    for form in forms + fed_forms(command, forms):  # and the code an interpreter reads
        firsts.add(" ".join(form).split(" ", 1)[0])
    for steps in analyze_line(command).steps:  # and every step the analysis proves runs
        for step in steps:
            words = step.words[step.offset:] if step.kind in ("assign", "assign_command") \
                else step.words
            if words:
                firsts.update((words[0], words[0].rsplit("/", 1)[-1]))
    positions = list(unkeyed)
    for word in firsts:
        positions += by_word.get(word, ())
    return sorted(set(positions))


def unprovable(command: str) -> str | None:
    """Why the programs of a Bash command cannot be proven (None: they can)."""
    try:
        return analyze_line(command).reason
    except ShellSyntaxError as exc:
        return f"it does not parse: {exc}"


def allow_each_command(rules: Sequence[CompiledRule],
                       applicable: Callable[[Mapping[str, Any]], Iterable[CompiledRule]],
                       tool_input: Mapping[str, Any]) -> Decision | None:
    """A command no single allow rule covers is allowed when each of its commands (and
    each wrapper and program within one: ``sudo npm test`` needs ``sudo`` and ``npm
    test`` allowed) is allowed by some Bash allow rule (as in Claude Code). Only rules
    without rewrites; their conditions and expr must hold for the whole input.

    ``rules`` are the policy's rules in evaluation order; ``applicable`` gives the Bash
    rules that can match an input (the policy's plan for Bash)."""
    command = tool_input.get("command")
    if not isinstance(command, str):
        return None
    try:
        parsed = parse_command(command)
    except ShellSyntaxError:
        return None
    analysis = analyze_line(command)
    if parsed.opaque or analysis.reason is not None or not any(analysis.steps):
        return None
    candidates: dict[int, CompiledRule] = {}
    for steps in analysis.steps:
        for step in steps:
            for rule in applicable({"command": step.text}):
                candidates.setdefault(id(rule), rule)
    matchers: list[tuple[BashMatcher, CompiledRule]] = []
    for rule in sorted(candidates.values(), key=rules.index):
        if rule.effect != "allow" or rule.rewrite is not None or not isinstance(
                rule.content, BashMatcher) or rule.content.whole:
            continue
        try:
            if all(c.holds(tool_input, strict=True) for c in rule.conditions) and (
                    rule.expr is None or rule.expr.holds("Bash", tool_input)):
                matchers.append((rule.content, rule))
        except ExprError:
            continue
    used: list[CompiledRule] = []
    for steps in analysis.steps:
        covered = cover_steps(steps, matchers)
        if covered is None:
            return None
        used += covered
    if not used:
        return None
    texts = list(dict.fromkeys(rule.text for rule in used))
    return Decision("allow", rule=" + ".join(texts), origin=used[0].origin)
