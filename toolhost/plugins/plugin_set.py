"""``PluginSet``: the activated plugins, their kinds, and how they extend a loaded config."""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from toolhost.backends.base import BackendKind
from toolhost.config.applied import applied_dir, remember_applied
from toolhost.config.model import (
    UNKNOWN,
    HostConfig,
    PermissionsConfig,
    PluginRequirement,
    RuleConfig,
    ServerConfig,
    ToolConfig,
)
from toolhost.errors import ConfigError, Problem
from toolhost.plugins.discovery import canonical_name
from toolhost.plugins.registry import Registry

__all__ = ["PluginInfo", "PluginSet", "config_dir", "settings"]

log = logging.getLogger("toolhost.plugins")

_EMPTY: Mapping[str, Any] = MappingProxyType({})
_settings_lock = threading.Lock()
_settings: dict[str, Mapping[str, Any]] = {}


def settings(plugin: str) -> Mapping[str, Any]:
    """The ``settings.<plugin>`` block of the config most recently applied in this process.

    A plugin's tool functions call this at call time, e.g.
    ``root = toolhost.plugins.settings("toolhost-files").get("root", ".")``. Empty when the
    config has no block for the plugin.
    """
    with _settings_lock:
        return _settings.get(plugin, _EMPTY)


def config_dir() -> Path:
    """The directory of the config most recently applied (relative settings resolve here).

    The current directory when no config file was involved.
    """
    with _settings_lock:
        return applied_dir() or Path.cwd()


@dataclass(frozen=True)
class PluginInfo:
    """One enabled plugin: its distribution name, version, and what it contributes."""

    name: str
    version: str
    # {"kinds": [...], "servers": [...], "tools": [...], "rules": [...], "fragments": [...]}
    provides: Mapping[str, list[str]] = field(default_factory=dict)
    requirement: PluginRequirement | None = None
    modules: tuple[str, ...] = ()  # the entry points' targets


@dataclass(frozen=True)
class PluginSet:
    """The result of ``activate``: backend kinds, enabled plugins, and their contributions."""

    kinds: Mapping[str, BackendKind]
    plugins: tuple[PluginInfo, ...] = ()
    registries: tuple[Registry, ...] = ()
    builtins: PluginInfo | None = None
    # Plugins left out (only with activate(strict=False)).
    problems: tuple[Problem, ...] = ()

    def apply(self, config: HostConfig) -> HostConfig:
        """``config`` with every enabled plugin's servers, tools and rules added.

        What the config declares itself wins: a server of the same name in the config is
        kept as written, with the config's tools only (a plugin tool aimed at it is left out,
        with a warning naming both: the server's rules, a server-wide allow among them, were
        written for the tools the config declares), and plugin rules come before the
        config's own. Each
        plugin's ``settings`` block is checked against the schema it declared and becomes
        what ``toolhost.plugins.settings(name)`` returns.
        """
        servers: dict[str, ServerConfig] = dict(config.servers)
        declared = {(s.name, t) for s in config.servers.values() for t in s.tools}
        problems: list[Problem] = []
        owners: dict[str, set[str]] = {}  # a server no config file declares -> its plugins
        landed: dict[str, set[str]] = {}  # plugin -> the mcp__S__T names its tools got
        problems.extend(_misspelt_settings(config, [r.plugin for r in self.registries]))
        for reg in self.registries:
            problems.extend(_check_settings(reg, config))
            for name, server in reg.servers.items():
                if name not in servers:
                    servers[name] = server
                if name not in config.servers:
                    owners.setdefault(name, set()).add(reg.plugin)
            by_server: dict[str, dict[str, ToolConfig]] = {}
            for (server_name, tool_name), tool in reg.tools.items():
                if (server_name, tool_name) not in declared:
                    by_server.setdefault(server_name, {})[tool_name] = tool
            for server_name, tools in by_server.items():
                if server_name in config.servers and config.servers[server_name].external is None:
                    _left_out(reg.plugin, config.servers[server_name], tools)
                    continue
                base = servers.get(server_name) or ServerConfig(
                    name=server_name, origin=next(iter(tools.values())).origin)
                if base.external is not None:
                    problems.append(Problem(
                        f"plugin '{reg.plugin}' adds tools to server '{server_name}', which "
                        "the config declares as an external server", file=base.origin.file,
                        line=base.origin.line, key_path=f"servers.{server_name}"))
                    continue
                servers[server_name] = replace(base, tools={**tools, **base.tools})
                owners.setdefault(server_name, set()).add(reg.plugin)
                landed.setdefault(reg.plugin, set()).update(
                    f"mcp__{server_name}__{name}" for name in tools)
        if problems:
            raise ConfigError(problems)
        rules = tuple(r for reg in self.registries for r in reg.rules
                      if r.effect != "allow" or _allows_own(r, reg.plugin, owners,
                                                            landed.get(reg.plugin, set())))
        permissions: PermissionsConfig = replace(
            config.permissions, rules=rules + tuple(config.permissions.rules))
        with _settings_lock:
            remember_applied(config.files)
            for reg in self.registries:
                _settings[reg.plugin] = MappingProxyType(dict(_block(config, reg.plugin)))
        return replace(config, servers=servers, permissions=permissions)


def _allows_own(rule: RuleConfig, plugin: str, owners: Mapping[str, set[str]],
                landed: set[str]) -> bool:
    """Whether ``plugin``'s allow ``rule`` can name only the plugin's own tools: exactly one
    of them (``mcp__S__T``), or a server only this plugin adds tools to (``mcp__S``,
    ``mcp__S__*``, ``mcp__S__read_*``). Otherwise it is left out with a warning: enabling a
    plugin for its tools must not allow the config's tools, another plugin's, or Claude's
    own (``Bash``, ``*``, ``mcp__*``)."""
    name = rule.tool.partition("(")[0]
    if name in landed:
        return True
    for server, plugins in owners.items():
        # (a server name never holds '__': mcp__S__* reaches no other server's tool)
        if plugins == {plugin} and (name == f"mcp__{server}"
                                    or name.startswith(f"mcp__{server}__")):
            return True
    where = f" ({rule.origin.key_path})" if rule.origin.key_path else ""
    log.warning("plugin '%s': allow rule %r%s names tools the plugin does not add to a server "
                "of its own: left out (a plugin's allow rules cover only its own tools; allow "
                "others in the config's permissions)", plugin, rule.tool, where)
    return False


def _left_out(plugin: str, server: ServerConfig, tools: Mapping[str, ToolConfig]) -> None:
    """Warn that ``plugin``'s ``tools`` are not added to ``server``, which the config declares."""
    names = ", ".join(f"mcp__{server.name}__{name}" for name in sorted(tools))
    first = next(iter(tools.values())).origin
    plugin_at = f" ({first.file}:{first.line})" if first.file and first.line else ""
    problem = server.origin.problem(
        f"plugin '{plugin}'{plugin_at} adds {names} to server '{server.name}', which the "
        "config declares: left out (the config's server wins, and its rules were written "
        "for the config's tools)",
        hint="give the plugin's tools a server of their own, or declare the tool in the config")
    log.warning("%s", problem)


def _block(config: HostConfig, plugin: str) -> Mapping[str, Any]:
    """The config's settings for ``plugin``, matching names as pip does (_ - . alike)."""
    key = canonical_name(plugin)
    for name, block in config.settings.items():
        if canonical_name(name) == key:
            return block
    return _EMPTY


def _misspelt_settings(config: HostConfig, enabled: Sequence[str]) -> list[Problem]:
    """A ``settings`` block whose name is a near miss of an enabled plugin's: that plugin
    would run with its defaults (``toolhost-file: {root: ./docs}`` left toolhost-files
    reading the whole project). A block for a plugin not enabled at all, or for another
    installed plugin, is left alone: a person's own layer may set up plugins only some
    projects enable."""
    from toolhost.typos import close_matches

    names = {canonical_name(n): n for n in enabled}
    problems = []
    installed: set[str] | None = None  # read once, only for a block no enabled plugin has
    for name in config.settings:
        if not isinstance(name, str) or canonical_name(name) in names:
            continue
        installed = _installed() if installed is None else installed
        # nearest among every installed plugin: another real plugin's block (toolhost-
        # gitlab's, set up in a person's layer, next to toolhost-git), or a near miss of
        # one, is not this one's
        close = close_matches(canonical_name(name), sorted(installed | set(names)), n=1,
                              cutoff=0.8)
        if close and close[0] in names and canonical_name(name) not in installed:
            where = config.origins.get(f"settings.{name}", UNKNOWN)
            problems.append(Problem(
                f"settings for '{name}', which is not an enabled plugin: "
                f"'{names[close[0]]}' would run with its defaults", file=where.file,
                line=where.line, column=where.column, key_path=f"settings.{name}",
                hint=f"did you mean '{names[close[0]]}'?"))
    return problems


def _installed() -> set[str]:
    from toolhost.plugins.discovery import installed_plugins

    return set(installed_plugins())


def _check_settings(reg: Registry, config: HostConfig) -> list[Problem]:
    if reg.settings_schema is None:
        return []
    from jsonschema import Draft202012Validator

    value = dict(_block(config, reg.plugin))
    origin = config.origins.get(f"settings.{reg.plugin}", UNKNOWN)
    problems = []
    validator = Draft202012Validator(dict(reg.settings_schema))
    for err in sorted(validator.iter_errors(value), key=lambda e: list(e.path)):
        path = ".".join(["settings", reg.plugin, *(str(p) for p in err.path)])
        known = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            from toolhost.config.checks import did_you_mean

            for key in err.instance:  # name each unknown key, as the config loader does
                if key not in known:
                    where = config.origins.get(f"{path}.{key}", origin)
                    problems.append(Problem("unknown setting", file=where.file,
                                            line=where.line, column=where.column,
                                            key_path=f"{path}.{key}",
                                            hint=did_you_mean(key, known)
                                            or "settings: " + ", ".join(known)))
            continue
        where = config.origins.get(path, origin)
        problems.append(Problem(err.message, file=where.file, line=where.line,
                                column=where.column, key_path=path))
    return problems
