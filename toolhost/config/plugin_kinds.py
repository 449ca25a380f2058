"""The plugins a load enables: their installed releases checked against the lock before any
of their code is imported, then activated for the backend kinds they add."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolhost.backends.base import BackendKind
from toolhost.backends.registry import builtin_kinds
from toolhost.config.applied import remember_applied
from toolhost.config.checks import Checker
from toolhost.config.model import HostConfig, PluginRequirement
from toolhost.errors import ConfigError, PluginError
from toolhost.lockfile import LockGuard

__all__ = ["default_kinds", "installed_versions", "locked_plugins", "plugin_versions"]


def locked_plugins(guard: LockGuard, plugins: tuple[PluginRequirement, ...]
                   ) -> tuple[PluginRequirement, ...]:
    """Of ``plugins``, those whose installed release every lock that pins them allows; the
    lock refuses an unlocked release before any of its code is imported (its problems go to
    ``guard.problems``)."""
    held: set[str] = set()
    for lock, wanted in guard.plugin_locks(plugins):
        held |= lock.check_plugins(installed_versions(tuple(wanted)),
                                   {p.name: p.origin for p in wanted})
        if lock is not guard:  # a personal lock's findings are this load's too
            guard.problems.extend(lock.problems)
    return tuple(p for p in plugins if p.name not in held)


def plugin_versions(config: HostConfig) -> dict[str, str]:
    """The installed version of every plugin distribution the config enables."""
    return installed_versions(config.plugins)


def installed_versions(plugins: tuple[PluginRequirement, ...]) -> dict[str, str]:
    """The installed version of each plugin distribution, read from its metadata: nothing
    of it is imported."""
    found: dict[str, str] = {}
    if not plugins:
        return found
    import importlib.metadata as md

    for requirement in plugins:
        try:
            found[requirement.name] = md.version(requirement.name)
        except md.PackageNotFoundError:
            continue  # reported by activation, with the install hint
    return found


class _NoPlugins:
    """What activating no plugin returns, as far as a load uses it."""

    def apply(self, config: HostConfig) -> HostConfig:
        """Record the config's directory (``toolhost.plugins.config_dir``); nothing to add."""
        remember_applied(config.files)
        return config


def default_kinds(check: Checker, plugins: tuple[PluginRequirement, ...]
                  ) -> tuple[Mapping[str, BackendKind], Any]:
    """Built-in kinds plus the kinds of the plugins the config enables."""
    if not plugins:  # the built-in kinds, as activating no plugin returns them, without
        # importing the plugin machinery (a fresh `serve` of a config without plugins)
        return builtin_kinds(), _NoPlugins()
    from toolhost.plugins import activate

    try:
        activation = activate(plugins)
    except ConfigError as exc:  # already names the plugins: line and the install hint
        check.problems.extend(exc.problems)
        # Check the rest against the kinds that did activate, not against none at all.
        return getattr(exc, "kinds", {}), None
    except PluginError as exc:
        check.problem(("plugins",), str(exc))
        return {}, None
    return activation.kinds, activation
