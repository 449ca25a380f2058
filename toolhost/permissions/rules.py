"""One permission rule, parsed and compiled: which tools, which content, which arguments."""

from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolhost.config.model import Origin, RuleConfig
from toolhost.permissions.conditions import (
    MISSING,
    Condition,
    KeyPath,
    PointerSegment,
    compile_when,
    lookup,
    parse_key_path,
)
from toolhost.permissions.expr.core import ExprError
from toolhost.permissions.names import NamePattern, parse_name_pattern
from toolhost.permissions.resource_rules import READ_RESOURCE_TOOL, canonical_when

if TYPE_CHECKING:
    from toolhost.permissions.callers.identity import CallerMatch
    from toolhost.permissions.content import ContentMatcher
    from toolhost.permissions.expr.core import CompiledExpr

# Content (Bash, paths, URLs), expr and callers load with the first rule that uses them.

__all__ = ["CompiledRule", "RewriteError", "compile_rule"]

_RULE = re.compile(r"(?P<name>[^()\s]+)(?:\((?P<content>.*)\))?", re.DOTALL)


class RewriteError(Exception):
    """An allow rule's rewrite could not be applied to this input."""


@dataclass(frozen=True)
class Rewrite:
    """An allow rule's ``rewrite``: values to set and numbers to clamp in the input."""

    sets: tuple[tuple[str, KeyPath, Any], ...]
    clamps: tuple[tuple[str, KeyPath, float | None, float | None], ...]

    def apply(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = copy.deepcopy(dict(arguments))
        for key, path, value in self.sets:
            _assign(out, key, path, copy.deepcopy(value))
        for key, path, low, high in self.clamps:
            current = lookup(out, path)
            if current is MISSING:  # WRONG (a step through a non-object) is refused below
                continue
            if not isinstance(current, (int, float)) or isinstance(current, bool):
                raise RewriteError(f"cannot clamp {key}: {current!r} is not a number")
            clamped = current
            if low is not None and clamped < low:
                clamped = low
            if high is not None and clamped > high:
                clamped = high
            _assign(out, key, path, clamped)
        return out


def _assign(target: Any, key: str, path: KeyPath, value: Any) -> None:
    path = tuple(int(p) if isinstance(p, PointerSegment) and p.isdigit()
                 and isinstance(lookup(target, path[:i]), list) else p
                 for i, p in enumerate(path))  # JSON Pointer digits index lists
    for part in path[:-1]:
        if isinstance(part, int):
            if not isinstance(target, list) or part >= len(target):
                raise RewriteError(f"cannot set {key}: no item [{part}]")
            target = target[part]
        else:
            if not isinstance(target, dict):
                raise RewriteError(f"cannot set {key}: not an object")
            target = target.setdefault(part, {})
    last = path[-1]
    if isinstance(last, int):
        if not isinstance(target, list) or last >= len(target):
            raise RewriteError(f"cannot set {key}: no item [{last}]")
        target[last] = value
    elif isinstance(target, dict):
        target[last] = value
    else:
        raise RewriteError(f"cannot set {key}: not an object")


def _compile_rewrite(spec: Mapping[str, Any]) -> Rewrite:
    unknown = [k for k in spec if k not in ("set", "clamp")]
    if unknown:
        raise ValueError(f"rewrite: unknown key {unknown[0]!r} (expected set and/or clamp)")
    sets, clamps = [], []
    for part in ("set", "clamp"):
        if not isinstance(spec.get(part) or {}, Mapping):
            raise ValueError(f"rewrite.{part}: expected a mapping of argument paths to "
                             + ("values" if part == "set" else "{min: N, max: N}")
                             + f", not {type(spec[part]).__name__}")
    for key, value in dict(spec.get("set") or {}).items():
        sets.append((str(key), parse_key_path(str(key)), value))
    for key, bounds in dict(spec.get("clamp") or {}).items():
        if not isinstance(bounds, Mapping) or not bounds or set(bounds) - {"min", "max"}:
            raise ValueError(f"rewrite.clamp.{key}: expected {{min: N, max: N}}")
        for b in bounds.values():
            if not isinstance(b, (int, float)) or isinstance(b, bool):
                raise ValueError(f"rewrite.clamp.{key}: min and max must be numbers")
        clamps.append((str(key), parse_key_path(str(key)), bounds.get("min"), bounds.get("max")))
    return Rewrite(tuple(sets), tuple(clamps))


@dataclass(frozen=True, eq=False)
class CompiledRule:
    """A rule ready to decide: name pattern, optional content, conditions, expr, rewrite."""

    effect: str
    text: str  # the rule as written, e.g. "Bash(npm test:*)" or "mcp__x__y when {...}"
    origin: Origin
    layer: str
    names: NamePattern
    content: ContentMatcher | None = None
    conditions: tuple[Condition, ...] = ()
    expr: CompiledExpr | None = None
    message: str | None = None
    rewrite: Rewrite | None = None
    config: RuleConfig | None = None
    callers: CallerMatch | None = None

    @property
    def unconditional(self) -> bool:
        """Matches every call of the tools it names (no content, when, expr or callers)."""
        return (self.content is None and not self.conditions and self.expr is None
                and self.callers is None)

    def matches(self, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether this rule applies (the name already matched). May raise ExprError."""
        if self.callers is not None and not self.callers.admits_current(
                strict=self.effect == "allow"):
            return False  # no caller, or another one (an unreadable claim: deny/ask apply)
        if self.content is not None and not self.content.matches(
                tool_name, tool_input, strict=self.effect == "allow"):
            return False
        for condition in self.conditions:
            if not condition.holds(tool_input, strict=self.effect == "allow"):
                return False
        return self.expr is None or self.expr.holds(tool_name, tool_input)

    def reaches(self, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        """Whether this deny or ask rule's ``Read(...)`` path may be read by a search
        (Grep/Glob/LS) of a directory above it, its other parts holding (loosely; an expr
        that fails counts). Such a call cannot be proven to stay off the path."""
        reach = getattr(self.content, "reaches", None)
        if self.effect == "allow" or reach is None or not reach(tool_name, tool_input):
            return False
        if self.callers is not None and not self.callers.admits_current(strict=False):
            return False
        if not all(c.holds(tool_input, strict=False) for c in self.conditions):
            return False
        try:
            return self.expr is None or self.expr.holds(tool_name, tool_input)
        except ExprError:
            return True

    def read_elsewhere(self) -> CompiledRule:
        """This rule for a tool that reads a relative path elsewhere than the rules' directory
        (or somewhere unknown): its path conditions judge absolute values alone
        (``Condition.read_elsewhere``). The rule itself when it has none."""
        if all(c.away is None for c in self.conditions):
            return self
        return dataclasses.replace(self, conditions=tuple(
            c.read_elsewhere() for c in self.conditions))

    @property
    def eq_index(self) -> tuple[str, tuple[str, Any]] | None:
        """(top-level key, index key) of this rule's first plain-equality condition, if any."""
        for condition in self.conditions:
            if condition.eq_index is not None:
                return str(condition.path[0]), condition.eq_index
        return None


def _describe(rule: RuleConfig) -> str:
    text = rule.tool
    if rule.when:
        text += " when " + json.dumps(rule.when, sort_keys=True, default=str)
    if rule.expr:
        text += f" if {rule.expr}"
    if rule.rewrite:
        text += " rewrite " + json.dumps(rule.rewrite, sort_keys=True, default=str)
    if rule.callers:
        from toolhost.permissions.callers.identity import parse_callers

        text += " " + parse_callers(rule.callers).describe()
    return text


def compile_rule(rule: RuleConfig, *, cwd: str) -> CompiledRule:
    """Compile one rule. Raises ValueError saying what is wrong with it."""
    if rule.effect not in ("allow", "deny", "ask"):
        raise ValueError(f"effect must be allow, deny or ask, not {rule.effect!r}")
    m = _RULE.fullmatch(rule.tool.strip())
    if not m:
        text = rule.tool.strip()
        opened, closed = text.count("("), text.count(")")
        fix = ("; a '(' is not closed: end the rule with ')'" if opened > closed else
               "; a ')' has no '(' before it" if closed > opened else "")
        raise ValueError(f"cannot parse rule {rule.tool!r} (expected Tool, Tool(specifier), "
                         f"mcp__server or mcp__server__tool){fix}")
    name, spec = m.group("name"), m.group("content")
    names = parse_name_pattern(name)
    rule_dir = (os.path.dirname(os.path.abspath(rule.origin.file))
                if rule.origin.file and not rule.origin.file.startswith("<") else cwd)
    content: ContentMatcher | None = None
    if spec is not None:
        from toolhost.permissions.content import CONTENT_TOOLS, parse_content

        if name not in CONTENT_TOOLS:
            parse_content(name, spec, cwd=cwd, rule_dir=rule_dir)  # raises with the reason
        spec = spec.strip()
        if not spec:
            raise ValueError(f"{name}() is empty (write {name} for every use)")
        if spec not in ("*", "**"):
            content = parse_content(name, spec, cwd=cwd, rule_dir=rule_dir)
    when = rule.when
    if when and "uri" in when and names.matches(READ_RESOURCE_TOOL):
        when = canonical_when(when)  # the spelling reads are decided on, however written
    conditions = tuple(compile_when(when, cwd=cwd, rule_dir=rule_dir)) if when else ()
    expr = None
    if rule.expr:
        from toolhost.permissions.expr.core import compile_expr

        expr = compile_expr(rule.expr)
    rewrite = None
    if rule.rewrite:
        if rule.effect != "allow":
            raise ValueError(f"rewrite is only allowed on allow rules, not {rule.effect}")
        rewrite = _compile_rewrite(rule.rewrite)
    callers = None
    if rule.callers is not None:
        from toolhost.permissions.callers.identity import parse_callers

        callers = parse_callers(rule.callers)
    return CompiledRule(rule.effect, _describe(rule), rule.origin, rule.layer, names, content,
                        conditions, expr, rule.message, rewrite, rule, callers)
