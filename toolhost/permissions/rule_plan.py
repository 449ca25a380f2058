"""The rules naming one tool, indexed so a call looks at the few that can match it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeGuard

from toolhost.permissions.conditions import MISSING, index_key

if TYPE_CHECKING:
    from toolhost.permissions.content import BashMatcher
    from toolhost.permissions.rules import CompiledRule

__all__ = ["INDEX_FROM", "RulePlan", "is_bash"]

INDEX_FROM = 8  # bucket equality rules when a tool has at least this many


class RulePlan:
    """The rules naming one tool, with rules that test a top-level argument for equality
    bucketed by that value, so hundreds of ``when: {table: x}`` rules cost one dict lookup."""

    def __init__(self, rules: tuple[CompiledRule, ...]) -> None:
        self.rules = rules
        self.unkeyed: list[int] = []
        self.keyed: dict[str, dict[tuple[str, Any], list[int]]] = {}
        # Bash rules bucketed by the literal first word of the commands they match.
        self.by_word: dict[str, list[int]] = {}
        # key -> JSON type tag -> positions: the rules a value of another type must still see
        self.by_tag: dict[str, dict[str, list[int]]] = {}
        words = [r.content.first_word if is_bash(r.content) else None
                 for r in rules]
        if sum(w is not None for w in words) >= INDEX_FROM:
            for i, word in enumerate(words):
                if word is None:
                    self.unkeyed.append(i)
                else:
                    self.by_word.setdefault(word, []).append(i)
            return
        indexed = [rule.eq_index for rule in rules]
        if sum(e is not None for e in indexed) < INDEX_FROM:
            return
        for i, entry in enumerate(indexed):
            if entry is None:
                self.unkeyed.append(i)
            else:
                self.keyed.setdefault(entry[0], {}).setdefault(entry[1], []).append(i)
                self.by_tag.setdefault(entry[0], {}).setdefault(entry[1][0], []).append(i)
        # what ``applicable`` returns when no bucket holds the call's values (built once)
        self._unkeyed_rules = tuple(self.rules[i] for i in self.unkeyed)

    def applicable(self, tool_input: Mapping[str, Any]) -> Iterable[CompiledRule]:
        """The rules that can match ``tool_input``, in evaluation order."""
        if self.by_word:
            return [self.rules[i] for i in self.by_command(tool_input.get("command"))]
        if not self.keyed:
            return self.rules
        positions: list[int] | None = None  # None: the unkeyed rules alone (the usual miss)
        for key, buckets in self.keyed.items():
            value = tool_input.get(key, MISSING)
            if value is MISSING:
                continue  # a plain value never equals an absent argument
            found = index_key(value)
            if found is not None and found in buckets:
                if positions is None:
                    positions = list(self.unkeyed)
                positions += buckets[found]
            # A value of another JSON type than a rule's is not "unequal" but undecidable:
            # deny and ask rules match it (fail closed), so they must be looked at.
            tag = found[0] if found is not None else None
            for other, idx in self.by_tag[key].items():  # a handful of types, not every value
                if other != tag:
                    if positions is None:
                        positions = list(self.unkeyed)
                    positions += idx
        if positions is None:
            return self._unkeyed_rules
        positions.sort()
        return [self.rules[i] for i in positions]

    def by_command(self, command: Any) -> list[int]:
        """Positions of the Bash rules that can match ``command`` (all if it does not parse)."""
        from toolhost.permissions.bash.policy import command_positions

        return command_positions(command, self.unkeyed, self.by_word, len(self.rules))


def is_bash(content: object) -> TypeGuard[BashMatcher]:
    """A ``Bash(...)`` matcher? Only a rule with content can hold one, and compiling it
    loaded the content module already."""
    if content is None:
        return False
    from toolhost.permissions.content import BashMatcher as Bash

    return isinstance(content, Bash)
