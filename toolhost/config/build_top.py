"""``permissions:``, ``plugins:``, ``settings:`` and ``run:`` -> their model objects.

Permission patterns are not interpreted here (the permissions package does that); only their
shape is checked, so a malformed rule still stops the load with its file and line.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from toolhost.config.checks import Checker
from toolhost.config.cli_args import own_decisions, weakening
from toolhost.config.filepaths import resolve_path
from toolhost.config.limits import LIMITS, MAX_DIGITS
from toolhost.config.model import (
    PermissionsConfig,
    PluginRequirement,
    RuleConfig,
    RunConfig,
    ServeConfig,
)
from toolhost.excerpt import cut

__all__ = ["PERMISSION_KEYS", "RULE_KEYS", "RUN_KEYS", "SERVE_KEYS", "build_permissions",
           "build_plugins", "build_run", "build_serve_settings", "build_settings"]

PERMISSION_KEYS = ("default", "ask_mode", "audit_log", "allow", "deny", "ask")
RULE_LISTS = ("allow", "deny", "ask")
RULE_KEYS = ("tool", "when", "expr", "message", "rewrite", "callers")
RUN_KEYS = ("model", "system_prompt", "append_system_prompt", "max_turns", "cwd", "cli_args",
            "env")
SERVE_KEYS = ("write_timeout",)
# (text: compiled at its first use, kept in re's cache; not at every start)
_DIST = r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(.*)$"
_LONG_NUMBER = re.compile(rf"[0-9]{{{MAX_DIGITS + 1}}}")
# a distribution name as PEP 508 allows it: what a hint's `pip install NAME` may hold
DIST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?")


def build_permissions(check: Checker, value: Any) -> PermissionsConfig:
    path = ("permissions",)
    data = check.mapping(value, path)
    if data is None:
        return PermissionsConfig()
    check.known_keys(data, path, PERMISSION_KEYS)
    default = check.choice(data, path, "default", RULE_LISTS) or "ask"
    ask_mode = check.choice(data, path, "ask_mode", ("prompt", "allow", "deny")) or "prompt"
    audit = check.string(data, path, "audit_log")
    rules: list[RuleConfig] = []
    written = sum(len(data[e]) for e in RULE_LISTS if isinstance(data.get(e), list))
    if written > LIMITS.rules:  # each costs its compile and review at every start
        check.problem(path, f"{written:,} permission rules; the limit is {LIMITS.rules:,}",
                      "raise TOOLHOST_MAX_RULES if this is meant")
        return PermissionsConfig(default="deny")
    for effect in RULE_LISTS:
        if effect not in data:
            continue
        here = (*path, effect)
        items = data[effect]
        if not isinstance(items, list):
            check.expected(here, "a list of rules", items)
            continue
        for index, item in enumerate(items):
            rule = _rule(check, effect, item, (*here, index))
            if rule is not None:
                rules.append(rule)
    return PermissionsConfig(
        default=default,  # type: ignore[arg-type]
        rules=tuple(rules),
        audit_log=resolve_path(check, (*path, "audit_log"), audit, "file") if audit else None,
        ask_mode=ask_mode,  # type: ignore[arg-type]
    )


def _too_long(check: Checker, path: tuple[Any, ...], text: str) -> bool:
    """A rule past ``LIMITS.rule_chars`` is a problem (its compile would hold the load)."""
    if len(text) <= LIMITS.rule_chars:
        return False
    check.problem(path, f"a permission rule of {len(text):,} characters; the limit is "
                  f"{LIMITS.rule_chars:,}", "raise TOOLHOST_MAX_RULE_CHARS if this is meant")
    return True


def _rule(check: Checker, effect: str, item: Any, path: tuple[Any, ...]) -> RuleConfig | None:
    origin = check.origin(path)
    layer = check.place(path)[1]
    if isinstance(item, str):
        if not item.strip():
            check.problem(path, "empty rule pattern")
            return None
        if _too_long(check, path, item):
            return None
        _interpolated_path(check, path, item)
        return RuleConfig(effect=effect, tool=item, origin=origin,  # type: ignore[arg-type]
                          layer=layer)
    data = check.mapping(item, path)
    if data is None:
        return None
    refused = len(check.problems)
    check.known_keys(data, path, RULE_KEYS)
    if not check.require(data, path, "tool", "the tool pattern the rule applies to"):
        return None
    tool = check.string(data, path, "tool")
    when = check.mapping(data["when"], (*path, "when")) if "when" in data else None
    rewrite = check.mapping(data["rewrite"], (*path, "rewrite")) if "rewrite" in data else None
    if rewrite is not None and effect != "allow":
        check.problem((*path, "rewrite"), "only an allow rule can rewrite arguments")
    callers = None
    if "callers" in data:
        from toolhost.permissions.callers.identity import parse_callers

        try:
            parse_callers(data["callers"])
            callers = data["callers"]
        except ValueError as exc:
            check.problem((*path, "callers"), str(exc))
    if tool is None or _too_long(check, (*path, "tool"), tool):
        return None
    _interpolated_path(check, (*path, "tool"), tool)
    expr, message = check.string(data, path, "expr"), check.string(data, path, "message")
    if expr is not None and _too_long(check, (*path, "expr"), expr):
        return None
    if len(check.problems) > refused:
        # a part refused (callers, when, expr, an unknown key): the rule is not kept as if it
        # had no condition, or lint would report the rules after it as shadowed
        return None
    return RuleConfig(effect=effect, tool=tool, when=when,  # type: ignore[arg-type]
                      expr=expr, message=message,
                      rewrite=rewrite, callers=callers, origin=origin, layer=layer)


def _interpolated_path(check: Checker, path: tuple[Any, ...], tool: str) -> None:
    """A path rule whose path begins with a ${...} value that is an absolute path."""
    written = check.substituted.get(path)
    if written is None:
        return
    from toolhost.permissions.paths import interpolated_root

    found = interpolated_root(tool, *written)
    if found is not None:
        check.problem(path, *found)


def build_plugins(check: Checker, value: Any) -> tuple[PluginRequirement, ...]:
    path = ("plugins",)
    if not isinstance(value, list):
        if isinstance(value, str) and value.strip():  # plugins: toolhost-files
            check.problem(path, "expected a list of plugin names, got the string "
                          f"{cut(repr(value), 80)}",
                          f"write it as a list: plugins: [{cut(value.strip(), 80)}]")
            return ()
        check.expected(path, "a list of plugin names ('name' or 'name>=1.0')", value)
        return ()
    out = []
    for index, item in enumerate(value):
        here = (*path, index)
        if isinstance(item, dict):
            check.known_keys(item, here, ("name", "version"))
            if not check.require(item, here, "name", "the plugin's distribution name"):
                continue
            name, spec = check.string(item, here, "name"), check.string(item, here, "version")
            if name is not None and not DIST_NAME.fullmatch(name):
                check.problem((*here, "name"), f"invalid plugin name {name!r}",
                              "a distribution name: letters, digits, '.', '_' and '-'")
                continue
        elif isinstance(item, str):
            found = re.match(_DIST, item)
            name, spec = (found[1], found[2]) if found else (None, "")
            if name is None:
                check.problem(here, f"invalid plugin requirement {item!r}")
        else:
            check.expected(here, "a plugin name or {name, version}", item)
            continue
        spec = (spec or "").strip()
        from packaging.specifiers import InvalidSpecifier, SpecifierSet

        try:
            SpecifierSet(spec)
        except InvalidSpecifier:
            check.problem(here, f"invalid version specifier {spec!r}", "e.g. '>=1.0,<2'")
            continue
        if _LONG_NUMBER.search(spec):  # packaging reads each part as an int: past Python's
            # digit limit comparing with it raised ValueError (an internal error)
            check.problem(here, f"invalid version specifier: a number of more than "
                          f"{MAX_DIGITS:,} digits in {cut(spec, 40)!r}", "e.g. '>=1.0,<2'")
            continue
        if name:
            out.append(PluginRequirement(name, spec, check.origin(here)))
    return tuple(out)


def build_settings(check: Checker, value: Any) -> dict[str, dict[str, Any]]:
    data = check.mapping(value, ("settings",)) or {}
    out = {}
    for name, item in data.items():
        section = check.mapping(item, ("settings", name))
        if section is not None:
            out[name] = section
    return out


def build_run(check: Checker, value: Any) -> RunConfig:
    path = ("run",)
    data = check.mapping(value, path)
    if data is None:
        return RunConfig()
    check.known_keys(data, path, RUN_KEYS)
    cwd = check.string(data, path, "cwd")
    cli_args = tuple(check.str_list(data, path, "cli_args") or ())
    refused = weakening(cli_args)
    if refused is not None:
        index, why = refused
        check.problem((*path, "cli_args", index), why,
                      "toolhost's permission rules decide every tool call under `run`")
    resolved = resolve_path(check, (*path, "cwd"), cwd, "directory") if cwd else None
    if resolved is not None:
        _warn_own_decisions(check, resolved)
    return RunConfig(
        model=check.string(data, path, "model"),
        system_prompt=check.string(data, path, "system_prompt"),
        append_system_prompt=check.string(data, path, "append_system_prompt"),
        max_turns=check.integer(data, path, "max_turns", minimum=1),
        cwd=resolved,
        cli_args=cli_args,
        env=check.env_map(data, path, "env") or {},
    )


def build_serve_settings(check: Checker, value: Any) -> ServeConfig:
    path = ("serve",)
    data = check.mapping(value, path)
    if data is None:
        return ServeConfig()
    check.known_keys(data, path, SERVE_KEYS)
    return ServeConfig(write_timeout=check.duration(data, path, "write_timeout"))


def _warn_own_decisions(check: Checker, directory: str) -> None:
    """Warn (located at ``run.cwd``) when the CLI's working directory carries settings of
    its own that decide without toolhost (docs/running.md)."""
    found = own_decisions(directory)
    if not found:
        return
    mark = check.mark(("run", "cwd"))
    where = f"{mark.file}:{mark.line}:{mark.column}" if mark.line else mark.file
    logging.getLogger("toolhost.config").warning(
        "%s: run.cwd: the CLI started in %s reads %s there, which can allow tools or run "
        "hooks without asking toolhost's rules; point run.cwd at a directory without them, "
        "or review them", where, directory, ", ".join(found))
