"""A rule's ``when``, ``expr`` and ``rewrite`` checked against the inputSchemas of its tools.

A rule that names an argument the tool cannot receive, or compares it in a way its type never
allows, never fires: ``validate`` says so with the rule's file:line. The targets are the
tools the rule can match whose schema is known (the config's tools, Claude Code's built-ins);
a path is an error only when no target could have it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolhost.config.model import Origin, RuleConfig
from toolhost.errors import Problem
from toolhost.excerpt import cut
from toolhost.permissions.authoring.literal_pattern import literal_pattern
from toolhost.permissions.conditions import KeyPath, parse_key_path
from toolhost.permissions.expr.refs import DICT_NAMES, expr_refs
from toolhost.permissions.satisfy import never_holds
from toolhost.permissions.schemapath import describe_types, numeric, resolve, schema_types

__all__ = ["Finding", "Target", "Where", "check_rule_paths", "pattern_operator"]


@dataclass(frozen=True)
class Target:
    """A tool a rule can match, with its inputSchema. ``strict``: a missing key is an error
    (the config's own tools) rather than a warning (built-ins, whose CLI may add arguments)."""

    name: str
    schema: Mapping[str, Any]
    strict: bool = True


@dataclass(frozen=True)
class Finding:
    """One thing the rule check found, an error or a warning."""

    level: str  # "error" | "warning"
    problem: Problem


Where = Callable[[str], Origin]  # key suffix (".when.path") -> the origin of that node


def pattern_operator(value: str) -> str | None:
    """The operator a plain string that looks like a pattern was probably meant for."""
    if len(value) < 2:
        return None
    if any(t in value for t in (".*", ".+", "\\d", "\\w", "\\s", "\\b", "(?")) or (
            value.startswith("^") or (value.endswith("$") and not value.endswith("\\$"))):
        return "regex"
    if "*" in value or "?" in value or ("[" in value and "]" in value):
        return "path_glob" if value.startswith(("/", "~", "./", "../")) else "glob"
    return None


_PATH_ARGS = ("file_path", "path", "notebook_path")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, Mapping) else "null"


def _type_bound(ops: Mapping[str, Any], types: Any) -> bool:
    """Whether every operator of ``ops`` tests a type the argument (of JSON ``types``) never
    has: no test can judge a value the argument takes (a deny/ask rule then holds)."""
    have = {"number" if t == "integer" else t for t in types}

    def bound(op: str, arg: Any) -> bool:
        if op in ("min", "max"):
            return "number" not in have
        if op in ("glob", "regex", "path_under", "path_glob", "host"):
            return "string" not in have
        if op == "equals":
            return _json_type(arg) not in have
        if op == "one_of" and isinstance(arg, list) and arg:
            return not any(_json_type(v) in have for v in arg)
        return False

    return bool(ops) and all(bound(op, arg) for op, arg in ops.items())


class _Checker:
    def __init__(self, rule: RuleConfig, where: Where, targets: Sequence[Target], *,
                 cwd: str, rule_dir: str) -> None:
        self.rule = rule
        self.where = where
        self.targets = targets
        self.cwd = cwd
        self.rule_dir = rule_dir
        self.found: list[Finding] = []

    def add(self, level: str, suffix: str, message: str, hint: str = "") -> None:
        origin = self.where(suffix)
        self.found.append(Finding(level, origin.problem(
            f"permission rule {self.rule.tool!r}: {message}", hint=hint)))

    def schemas(self, path: KeyPath, suffix: str, what: str) -> list[Mapping[str, Any]]:
        """The schema at ``path`` in every target that can have it; reports when none can."""
        found, misses = [], []
        for target in self.targets:
            got = resolve(target.schema, path)
            if got.schema is None:
                misses.append((target, got))
            else:
                found.append(got.schema)
        if misses and not found:
            named = self.rule.tool.split("(", 1)[0].strip()
            target, got = min(misses, key=lambda m: m[0].name != named)  # Read before Grep
            level = "error" if any(t.strict for t, _ in misses) else "warning"
            names = target.name if len(misses) == 1 else f"{len(misses)} tools it matches"
            hint = f"did you mean {got.suggestion!r}?" if got.suggestion else ""
            self.add(level, suffix, f"{what} can never be present: in {names}, {got.problem}",
                     hint)
        return found

    # -- when -------------------------------------------------------------------------------

    def when(self, when: Mapping[str, Any]) -> None:
        # entries naming one argument (``a.b``, ``/a/b``) are ANDed on its one value
        groups: dict[KeyPath, tuple[KeyPath, dict[Any, Any]]] = {}
        for raw, spec in when.items():
            suffix = f".when.{raw}"
            key = cut(str(raw), 60)
            try:
                path = parse_key_path(str(raw))
            except ValueError:
                continue  # compile_rule reports it
            before = len(self.found)
            self.when_entry(suffix, key, path, spec)
            if not any(f.level == "error" for f in self.found[before:]):
                same = tuple(str(p) if isinstance(p, str) else p for p in path)
                groups.setdefault(same, (path, {}))[1][raw] = spec
        for path, entries in groups.values():
            self.never(path, entries)

    def never(self, path: KeyPath, entries: Mapping[Any, Any]) -> None:
        """Report entries that no value the argument can take satisfies (together)."""
        schemas: list[Mapping[str, Any]] = []
        absent = False  # a target without the argument: only {present: false} holds there
        for target in self.targets:
            got = resolve(target.schema, path).schema
            if got is None:
                absent = True
            else:
                schemas.append(got)
        if not self.targets:
            schemas = [{}]  # schema unknown: only what the condition itself pins down
        if not schemas or (absent and any(isinstance(s, Mapping) and s.get("present") is False
                                          for s in entries.values())):
            return
        reason = never_holds(entries, path, schemas, strict=self.rule.effect == "allow",
                             valid=_valid, cwd=self.cwd, rule_dir=self.rule_dir)
        if reason:
            keys = [cut(str(k), 60) for k in entries]
            said = (f"when.{keys[0]} never holds" if len(keys) == 1 else
                    " and ".join(f"when.{k}" for k in keys) + " never hold together")
            self.add("error", f".when.{next(iter(entries))}", f"{said}: {reason}")

    def when_entry(self, suffix: str, key: str, path: KeyPath, spec: Any) -> None:
        ops = dict(spec) if isinstance(spec, Mapping) else {"equals": spec}
        self.plain_pattern(suffix, key, spec)
        self.operator_meant(suffix, key, ops)
        literal = literal_pattern(self.rule.effect, key, ops)
        if literal is not None:
            self.add("warning", suffix, *literal)
        low, high = ops.get("min"), ops.get("max")
        if _crossed(low, high):
            self.add("error", suffix, f"when.{key}: min {low} is above max {high}, so this "
                     "condition never holds")
        if not self.targets:
            return
        self.family_escapes(suffix, key, path, ops)
        for schema in self.schemas(path, suffix, f"when.{key}") or ():
            if self.op_fits(schema, ops):
                if len(self.targets) == 1:
                    self.one_of_outside(suffix, key, schema, ops)
                break
        else:
            if self.schemas_known(path):
                self.op_mismatch(suffix, key, path, ops)

    def family_escapes(self, suffix: str, key: str, path: KeyPath,
                       ops: Mapping[str, Any]) -> None:
        """A deny/ask rule on a built-in family (``Read``: Read, Grep, Glob, LS, NotebookRead;
        ``Edit``: Edit, Write, MultiEdit, NotebookEdit) testing an argument only some of its
        tools have (``when: {file_path: {path_under: /etc}}``: Grep, Glob and LS have
        ``path``): a condition on a missing argument does not hold, so those tools are never
        held by it and still reach what it names."""
        if self.rule.effect == "allow" or "present" in ops:
            return
        have = [t.name for t in self.targets if resolve(t.schema, path).schema is not None]
        lack = [t.name for t in self.targets if t.name not in have]
        if not have or not lack:
            return  # (none has it: reported as an argument that can never be present)
        # a server or glob rule over the config's own tools too (`mcp__fs__*`
        # testing `path` where mcp__fs__open takes `file`): the same silent escape
        builtin = not any(t.strict for t in self.targets)
        others = sorted({str(k) for t in self.targets if t.name in lack
                         for k in t.schema.get("properties", {})
                         if k in _PATH_ARGS or not builtin})[:8]
        theirs = f" (theirs: {', '.join(others)})" if others else ""
        base = self.rule.tool.split("(", 1)[0].strip()
        under = ops.get("path_under")
        spec = (f"//{under.lstrip('/')}/**" if under.startswith("/") else f"{under}/**") \
            if isinstance(under, str) and under.strip("/") else "..."
        hint = (f"write a path rule such as '{base}({spec})', which covers every tool of "
                f"the family, or add a rule testing {' or '.join(others)}" if builtin and others
                else f"add a rule for them testing {' or '.join(others)}" if others else
                "add a rule for them")
        verb = "has" if len(lack) == 1 else "have"
        self.add("warning", suffix,
                 f"when.{key}: {', '.join(lack)} {verb} no argument {key!r}{theirs}, so this "
                 f"{self.rule.effect} rule never holds for them: they still reach what it "
                 f"names", hint)

    def schemas_known(self, path: KeyPath) -> list[Mapping[str, Any]]:
        return [r.schema for t in self.targets if (r := resolve(t.schema, path)).schema
                is not None]

    def plain_pattern(self, suffix: str, key: str, spec: Any) -> None:
        value = spec.get("equals") if isinstance(spec, Mapping) else spec
        values = [value] + (list(spec["one_of"]) if isinstance(spec, Mapping) and isinstance(
            spec.get("one_of"), list) else [])
        for v in values:
            if not isinstance(v, str):
                continue
            op = pattern_operator(v)
            if op is None:
                continue
            shown = json.dumps(cut(v, 80))
            extra = ""
            if op == "path_glob" and v.endswith("/**"):
                extra = f" (or {{path_under: {json.dumps(v[:-3] or '/')}}})"
            self.add("warning", suffix, f"when.{key}: the plain value {shown} is tested for "
                     f"equality, not as a pattern", f"for a pattern write {{{op}: {shown}}}"
                     + extra)
            return

    def operator_meant(self, suffix: str, key: str, ops: Mapping[str, Any]) -> None:
        """An operator given a value written for another one."""
        for op, meant, why in (("path_under", ("path_glob",), "takes a directory, not a "
                                "pattern"),
                               ("glob", ("regex",), "is a shell-style wildcard, not a regex"),
                               ("equals", ("glob", "path_glob", "regex"), "tests equality")):
            arg = ops.get(op)
            found = pattern_operator(arg) if isinstance(arg, str) else None
            if found in meant:
                shown = json.dumps(cut(str(arg), 80))
                self.add("warning", suffix, f"when.{key}: {op} {why}: {shown} looks like a "
                         f"{found} pattern", f"did you mean {{{found}: {shown}}}?")

    def one_of_outside(self, suffix: str, key: str, schema: Mapping[str, Any],
                       ops: Mapping[str, Any]) -> None:
        values = ops.get("one_of")
        if not isinstance(values, list):
            return
        bad = [v for v in values if not _valid(schema, v)]
        if bad and len(bad) < len(values):
            shown = cut(", ".join(json.dumps(v, default=str) for v in bad), 120)
            self.add("warning", suffix, f"when.{key}: one_of lists values the argument can "
                     f"never take: {shown}" + _allowed(schema))

    def op_fits(self, schema: Mapping[str, Any], ops: Mapping[str, Any]) -> bool:
        """Whether every operator can hold for some value of ``schema``."""
        return not self.why_not(schema, ops)

    def why_not(self, schema: Mapping[str, Any], ops: Mapping[str, Any]) -> str:
        types = schema_types(schema)
        for op, arg in ops.items():
            if op in ("min", "max") and types is not None and not numeric(types):
                return f"'{op}' compares numbers, but the argument is {describe_types(types)}"
            if op in ("glob", "regex", "path_under", "path_glob", "host") and types is not None \
                    and "string" not in types:
                return f"'{op}' matches strings, but the argument is {describe_types(types)}"
            if op == "equals" and not _valid(schema, arg):
                return f"{cut(json.dumps(arg, default=str), 80)} is not a value it can take" \
                    + _allowed(schema)
            if op == "one_of" and isinstance(arg, list) and arg and not any(
                    _valid(schema, v) for v in arg):
                return "none of the one_of values is a value it can take" + _allowed(schema)
        return ""

    def op_mismatch(self, suffix: str, key: str, path: KeyPath, ops: Mapping[str, Any]) -> None:
        schema = self.schemas_known(path)[0]
        reason = self.why_not(schema, ops)
        if not reason:
            return
        types = schema_types(schema)
        if self.rule.effect != "allow" and types is not None and _type_bound(ops, types):
            # a deny/ask test that cannot judge the argument's type counts as a
            # match (fail closed), so the rule does not "never hold": it holds for every call
            # that gives the argument
            self.add("error", suffix, f"when.{key} holds for every call that gives it: {reason}, "
                     f"and a {self.rule.effect} rule counts a value its test cannot judge as a "
                     "match (fail closed)", "test the argument with an operator for its type")
            return
        self.add("error", suffix, f"when.{key} never holds: {reason}")

    # -- expr -------------------------------------------------------------------------------

    def expr(self, source: str) -> None:
        try:
            names, paths, calls = expr_refs(source)
        except Exception:  # a syntax error: compile_rule reports it
            return
        for name in names:
            self.add("error", ".expr", f"expr uses {name!r}, which is not defined: the "
                     f"expression sees args (the arguments) and tool (the tool name)",
                     f"did you mean args.{name}?")
        if not self.targets:
            return
        for path in calls:  # args.NAME is the argument NAME where there is one
            if path[-1] in DICT_NAMES and self.schemas_known(path):
                shown = "args" + "".join(f".{p}" for p in path)
                self.add("error", ".expr", f"expr calls {shown}(...), but {path[-1]!r} is an "
                         "argument of the tool: args.NAME is the argument, so this calls its "
                         "value, not the method", f"write args[{path[-1]!r}] for the argument")
        reported: set[KeyPath] = set()
        for path in paths:
            if any(path[:len(p)] == p for p in reported):
                continue
            before = len(self.found)
            self.schemas(path, ".expr", "expr path args" + "".join(
                f"[{p!r}]" if not isinstance(p, str) or not p.isidentifier() else f".{p}"
                for p in path))
            if len(self.found) > before:
                reported.add(path)

    # -- rewrite ----------------------------------------------------------------------------

    def rewrite(self, spec: Mapping[str, Any]) -> None:
        sets = spec.get("set")
        for key, value in (sets.items() if isinstance(sets, Mapping) else ()):
            suffix = f".rewrite.set.{key}"
            path = _path(key)
            if path is None or not self.targets:
                continue
            found = self.schemas(path, suffix, f"rewrite.set.{key}")
            if found and not any(_valid(s, value) for s in found):
                shown = cut(json.dumps(value, default=str), 80)
                self.add("error", suffix, f"rewrite.set.{key}: {shown}"
                         " is not a value the argument can take, so every rewritten call "
                         "fails the tool's schema" + _allowed(found[0]))
        clamps = spec.get("clamp")
        for key, bounds in (clamps.items() if isinstance(clamps, Mapping) else ()):
            suffix = f".rewrite.clamp.{key}"
            if isinstance(bounds, Mapping):
                low, high = bounds.get("min"), bounds.get("max")
                if _crossed(low, high):
                    self.add("error", suffix, f"rewrite.clamp.{key}: min {low} is above max "
                             f"{high}")
            path = _path(key)
            if path is None or not self.targets:
                continue
            found = self.schemas(path, suffix, f"rewrite.clamp.{key}")
            kinds = [schema_types(s) for s in found]
            if found and all(k is not None and not numeric(k) for k in kinds):
                self.add("error", suffix, f"rewrite.clamp.{key}: the argument is "
                         f"{describe_types(kinds[0] or set())}, not a number, so every call "
                         "that passes it is denied")


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _crossed(low: Any, high: Any) -> bool:
    """Both bounds are numbers and min is above max: nothing lies between."""
    return _number(low) and _number(high) and bool(low > high)


def _path(key: Any) -> KeyPath | None:
    try:
        return parse_key_path(str(key))
    except ValueError:
        return None


def _valid(schema: Mapping[str, Any], value: Any) -> bool:
    if not schema or "$ref" in json.dumps(schema, default=str):
        return True
    from toolhost.compile.fastcheck import compile_plain_check

    quick = compile_plain_check(schema)  # a yes without importing jsonschema (~60 ms)
    if quick is not None and quick(value):
        return True
    from jsonschema import Draft202012Validator

    try:
        return bool(Draft202012Validator(schema).is_valid(value))
    except Exception:  # a schema this check cannot use proves nothing
        return True


def _allowed(schema: Mapping[str, Any]) -> str:
    enum = schema.get("enum")
    if isinstance(enum, list):
        return " (it is one of " + cut(", ".join(json.dumps(v, default=str) for v in enum),
                                       120) + ")"
    types = schema_types(schema)
    return f" (it is {describe_types(types)})" if types else ""


def check_rule_paths(rule: RuleConfig, where: Where, targets: Sequence[Target], *,
                     cwd: str | None = None, rule_dir: str | None = None) -> list[Finding]:
    """Everything wrong with ``rule``'s argument paths and operators, given its targets.

    ``cwd`` (the working directory of the calls) and ``rule_dir`` (the rule's file's
    directory) anchor ``path_under``/``path_glob`` when a condition is tried on the values an
    argument can take; both default to the current directory."""
    here = os.getcwd()
    checker = _Checker(rule, where, targets, cwd=cwd or here, rule_dir=rule_dir or cwd or here)
    if isinstance(rule.when, Mapping):
        checker.when(rule.when)
    if isinstance(rule.expr, str):
        checker.expr(rule.expr)
    if isinstance(rule.rewrite, Mapping):
        checker.rewrite(rule.rewrite)
    return checker.found
