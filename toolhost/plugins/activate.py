"""Turn a config's ``plugins:`` list into backend kinds and config contributions.

Installed is not enabled: only toolhost's own entry point (the built-in kinds) and the
plugins a config lists are imported. Every problem (not installed, wrong version, raised while
registering) is collected and reported together, each naming the config's ``plugins`` line.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

from toolhost.backends.base import BackendKind
from toolhost.config.model import PluginRequirement
from toolhost.errors import ConfigError, PluginError, Problem
from toolhost.plugins.discovery import (
    EXAMPLES,
    GROUP,
    SELF,
    InstalledPlugin,
    canonical_name,
    installed_plugins,
    installed_version,
    pip_install,
)
from toolhost.plugins.exit_guard import exit_hooks_guarded, exits_refused
from toolhost.plugins.interrupt import CtrlC, ctrl_c_noted
from toolhost.plugins.plugin_set import PluginInfo, PluginSet
from toolhost.plugins.process_state import process_state_kept
from toolhost.plugins.registry import Registry
from toolhost.stdout_quiet import prints_to_stderr

if TYPE_CHECKING:
    import importlib.metadata as md

    from packaging.specifiers import SpecifierSet

__all__ = ["PluginConfigError", "activate", "kinds_for", "load_hook", "run_hook"]

log = logging.getLogger("toolhost.plugins")
SLOW_PLUGIN_SECONDS = 1.0  # a plugin slower to import and register than this is said so


class PluginConfigError(ConfigError, PluginError):
    """Plugins a config enables could not be activated; ``problems`` names each one.

    ``kinds`` are the backend kinds that did activate (the built-ins and every plugin that
    registered cleanly), so a loader can go on checking the rest of the config against them
    instead of reporting every ``command:`` block as unknown.
    """

    def __init__(self, problems: Sequence[Problem],
                 kinds: Mapping[str, BackendKind] | None = None) -> None:
        super().__init__(problems)
        self.kinds: Mapping[str, BackendKind] = dict(kinds or {})


@dataclass
class _Outcome:
    """What activating the plugins gave: their infos, registries and problems."""

    infos: list[PluginInfo] = field(default_factory=list)
    registries: list[Registry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def activate(requirements: Sequence[PluginRequirement], *, strict: bool = True) -> PluginSet:
    """Import the built-in kinds and the plugins ``requirements`` enable; nothing else.

    Returns a ``PluginSet`` whose ``kinds`` are the built-in kinds plus every enabled
    plugin's, and whose ``apply(config)`` adds the plugins' servers, tools and rules.

    Raises ``PluginConfigError`` (a ``ConfigError`` and a ``PluginError``) listing every
    plugin that is not installed, has an incompatible version, is not a toolhost plugin, or
    raised while registering. With ``strict=False`` those plugins are left out instead and
    their problems are in ``PluginSet.problems``: the host keeps running without them.
    """
    wanted = _merge(requirements)
    # With no plugin to enable, the installed distributions are not looked at (importlib's
    # metadata and the entry-point scan: ~25 ms of a fresh process); the built-in kinds
    # register through their hook directly.
    installed = installed_plugins() if wanted else {}
    outcome = _Outcome()
    builtins = _activate_builtins(installed, outcome)
    with ctrl_c_noted() as ctrl_c:  # a person's Ctrl-C, not a plugin's KeyboardInterrupt
        for req in wanted:
            _activate_one(req, installed, outcome, ctrl_c)

    kinds: dict[str, BackendKind] = dict(builtins.kinds) if builtins else {}
    owners = dict.fromkeys(kinds, "toolhost")
    seen_tools: dict[tuple[str, str], str] = {}
    seen_servers: dict[str, str] = {}
    kept: list[tuple[PluginInfo, Registry]] = []
    for info, reg in zip(outcome.infos, outcome.registries, strict=True):
        clash = _clashes(info, reg, owners, seen_tools, seen_servers)
        if clash:
            outcome.problems.append(_problem(info.requirement, clash))
            continue
        kinds.update(reg.kinds)
        owners.update(dict.fromkeys(reg.kinds, info.name))
        seen_tools.update(dict.fromkeys(reg.tools, info.name))
        seen_servers.update(dict.fromkeys(reg.servers, info.name))
        kept.append((info, reg))

    if outcome.problems and strict:
        raise PluginConfigError(outcome.problems, kinds)
    if SELF in installed:
        own = installed[SELF].version
    else:
        from toolhost import __version__ as own_version

        own = "0" if wanted else own_version  # "0": a source tree without metadata
    builtin_info = PluginInfo(name=SELF, version=own,
                              provides=builtins.provides() if builtins else {})
    if not outcome.problems:  # a load then compiles with these: each register() runs once
        _kinds_cache.setdefault(_cache_key(requirements), kinds)
    return PluginSet(kinds=kinds, plugins=tuple(i for i, _ in kept),
                     registries=tuple(r for _, r in kept), builtins=builtin_info,
                     problems=tuple(outcome.problems))


def _activate_builtins(installed: Mapping[str, InstalledPlugin],
                       outcome: _Outcome) -> Registry | None:
    reg = Registry(SELF)
    # A broken core is a bug, not a config problem: let it raise.
    if SELF in installed:
        for ep in installed[SELF].entry_points:
            load_hook(ep)(reg)
    else:  # running from a source tree without installed metadata
        import toolhost.backends.builtins as core

        core.register(reg)
    return reg


def _activate_one(req: PluginRequirement, installed: Mapping[str, InstalledPlugin],
                  outcome: _Outcome, ctrl_c: CtrlC) -> None:
    key = canonical_name(req.name)
    if key == SELF:
        outcome.problems.append(_problem(req, "toolhost itself is always enabled; remove it "
                                         "from `plugins`"))
        return
    # packaging's version machinery (~10 ms) only for a config that enables plugins
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        spec = SpecifierSet(req.specifier)
    except InvalidSpecifier:
        outcome.problems.append(_problem(req, f"invalid version constraint {req.specifier!r}",
                                         hint="write it as in pip, e.g. '>=0.2,<1'"))
        return
    plugin = installed.get(key)
    if plugin is None:
        version = installed_version(req.name)
        outcome.problems.append(_missing(req, installed) if version is None else _problem(
            req, f"package '{req.name}' {version} is installed but is not a toolhost plugin "
            f"(it declares no entry point in the '{GROUP}' group)"))
        return
    if req.specifier and not _satisfies(plugin.version, spec):
        outcome.problems.append(_problem(
            req, f"plugin '{plugin.name}' {plugin.version} is installed, but the config needs "
            f"'{plugin.name}{req.specifier}'",
            hint=pip_install(f"{plugin.name}{req.specifier}")))
        return
    reg = Registry(plugin.name)
    import time

    from toolhost.gateway.waiting import still_waiting

    started = time.perf_counter()
    loading = f"plugin '{plugin.name}' {plugin.version}"
    try:
        # a plugin that hangs at import holds every load: a person is told which one
        with still_waiting(lambda waited: _still_loading(req, loading, waited)), \
                process_state_kept(plugin.name), exits_refused(), \
                exit_hooks_guarded(plugin.name), \
                prints_to_stderr():  # stdout is what `tools --json`, `mcp-config > .mcp.json`
            for ep in plugin.entry_points:  # and `plugins --json` print: a plugin's print
                run_hook(load_hook(ep), reg, ep.value)  # at import or in register() must
                # not corrupt it
        _check_kinds(reg)
        reg.close()  # a thread the hook started adds nothing afterwards
    except BaseException as exc:  # a plugin's bug (even a BaseException of its own,
        # SystemExit, a KeyboardInterrupt with no Ctrl-C) must not take the host down: one
        # line naming the plugin
        if ctrl_c.pressed:  # the person's Ctrl-C (the plugin may have turned it into exc)
            _stopped(req, loading)
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise KeyboardInterrupt from exc
        log.debug("plugin %s failed while registering", plugin.name, exc_info=True)
        outcome.problems.append(_problem(
            req, f"plugin '{plugin.name}' {plugin.version} failed while registering: "
            f"{_raised(exc)}",
            hint=f"run with -vv for the traceback; reinstall or upgrade '{plugin.name}'"))
        return
    if ctrl_c.pressed:  # the plugin caught the person's Ctrl-C and went on: it still counts
        _stopped(req, loading)
        raise KeyboardInterrupt
    took = time.perf_counter() - started
    if took >= SLOW_PLUGIN_SECONDS:  # every load waits for it: run, serve, validate, reloads
        log.warning("plugin '%s' %s took %.1f s to import and register: every start and "
                    "reload waits for it (a plugin imports heavy modules inside its tools, "
                    "not at import)", plugin.name, plugin.version, took)
    outcome.infos.append(PluginInfo(name=plugin.name, version=plugin.version,
                                    provides=reg.provides(), requirement=req,
                                    modules=tuple(ep.value for ep in plugin.entry_points)))
    outcome.registries.append(reg)


def _still_loading(req: PluginRequirement, loading: str, waited: float) -> str:
    return str(_problem(req, f"still waiting for {loading} to import and register "
                        f"({waited:.0f} s)", hint="a plugin that hangs at import holds every "
                        "load; Ctrl-C stops"))


def _stopped(req: PluginRequirement, loading: str) -> None:
    """Say where a Ctrl-C stopped the load: the plugin it was waiting for, at its line."""
    log.warning("%s", _problem(req, f"stopped by Ctrl-C while {loading} was importing and "
                               "registering"))


def _raised(exc: BaseException) -> str:
    """What a plugin raised, in words: its type and message (a message that itself raises
    cannot take the load down)."""
    try:
        text = str(exc)
    except Exception as inner:  # a plugin's __str__ is its code too
        text = f"(its message could not be shown: {type(inner).__name__})"
    said = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    if isinstance(exc, KeyboardInterrupt):
        said += " raised by the plugin (no Ctrl-C was pressed)"
    return said


def run_hook(hook: Callable[[Registry], Any], reg: Registry, where: str) -> None:
    """Call a plugin's ``register(registry)``; one that did not run its body is an error.

    An ``async def register`` returns a coroutine and a ``register`` with ``yield`` a
    generator: calling either runs none of its body, so the plugin would be enabled with
    nothing registered, its deny rules silently missing.
    """
    import inspect

    result = hook(reg)
    if inspect.isawaitable(result) or inspect.isgenerator(result) \
            or inspect.isasyncgen(result):
        close = getattr(result, "close", None)
        if callable(close):  # no "coroutine was never awaited" warning on top
            close()
        what = "a coroutine (async def)" if inspect.isawaitable(result) else "a generator"
        raise PluginError(f"register() of {where!r} is {what}: toolhost calls it as a plain "
                          "function, so none of its body ran (make it a plain def)")


def load_hook(ep: md.EntryPoint) -> Callable[[Registry], Any]:
    """Import an entry point and return its ``register(registry)`` hook."""
    obj = ep.load()
    if isinstance(obj, ModuleType):
        return _hook_of(obj, ep.value)
    if not callable(obj):
        raise PluginError(f"entry point {ep.name} = {ep.value!r} is not callable")
    hook: Callable[[Registry], Any] = obj
    return hook


def _hook_of(module: ModuleType, where: str) -> Callable[[Registry], Any]:
    hook = getattr(module, "register", None)
    if not callable(hook):
        raise PluginError(f"plugin module {where!r} has no register(registry) function")
    result: Callable[[Registry], Any] = hook
    return result


def _check_kinds(reg: Registry) -> None:
    for name, kind in reg.kinds.items():
        if kind.name != name:  # pragma: no cover - add_kind keys by kind.name
            raise PluginError(f"kind registered as {name!r} calls itself {kind.name!r}")


def _clashes(info: PluginInfo, reg: Registry, owners: Mapping[str, str],
             tools: Mapping[tuple[str, str], str], servers: Mapping[str, str]) -> str:
    for kind in reg.kinds:
        if kind in owners:
            return (f"plugin '{info.name}' adds backend kind '{kind}', which "
                    f"'{owners[kind]}' already provides")
    for key in reg.tools:
        if key in tools:
            return (f"plugin '{info.name}' adds tool mcp__{key[0]}__{key[1]}, which "
                    f"'{tools[key]}' already provides")
    for server in reg.servers:  # the second one's description, version, timeout or external
        if server in servers:  # command was dropped without a word, its tools under the first
            return (f"plugin '{info.name}' adds server '{server}', which "
                    f"'{servers[server]}' already provides")
    return ""


def _merge(reqs: Sequence[PluginRequirement]) -> list[PluginRequirement]:
    """One requirement per plugin: repeated entries have their constraints combined."""
    merged: dict[str, PluginRequirement] = {}
    for req in reqs:
        key = canonical_name(req.name)
        if key in merged:
            first = merged[key]
            spec = ",".join(s for s in (first.specifier, req.specifier) if s)
            merged[key] = PluginRequirement(first.name, spec, first.origin)
        else:
            merged[key] = req
    return list(merged.values())


def _satisfies(version: str, spec: SpecifierSet) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return spec.contains(Version(version), prereleases=True)
    except (InvalidVersion, ValueError):  # ValueError: a part past Python's digit limit
        return False


def _missing(req: PluginRequirement, installed: Mapping[str, Any]) -> Problem:
    from toolhost.typos import close_matches

    # a typo of an installed plugin: suggest it, not `pip install` of a name that may be
    # someone else's package
    others = [p.name for k, p in installed.items() if k != SELF]
    close = close_matches(req.name, others, n=1, cutoff=0.85)  # not every toolhost-*
    if close:
        return _problem(req, f"plugin '{req.name}' is not installed",
                        hint=f"did you mean '{close[0]}', which is installed?")
    from packaging.utils import canonicalize_name

    if canonicalize_name(req.name) in EXAMPLES:  # not on the package index, where a package
        # of that name would be someone else's
        return _problem(req, f"plugin '{req.name}' is not installed",
                        hint=f"it is an example plugin of toolhost's repository, not on the "
                        f"package index: pip install plugins/{canonicalize_name(req.name)} in "
                        "toolhost's clone")
    return _problem(req, f"plugin '{req.name}' is not installed",
                    hint=pip_install(f"{req.name}{req.specifier}"))



def _problem(req: PluginRequirement | None, message: str, hint: str = "") -> Problem:
    if req is None:
        return Problem(message, hint=hint)
    o = req.origin
    return Problem(message, file=o.file, line=o.line, column=o.column,
                   key_path=o.key_path or "plugins", hint=hint)


_kinds_cache: dict[tuple[tuple[str, str], ...], Mapping[str, BackendKind]] = {}


def _cache_key(requirements: Sequence[PluginRequirement]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((canonical_name(r.name), r.specifier) for r in requirements))


def kinds_for(requirements: Sequence[PluginRequirement]) -> Mapping[str, BackendKind]:
    """The backend kinds a config with these ``plugins`` may use (built-ins included).

    For callers that hold a loaded ``HostConfig`` but not its ``PluginSet``:
    ``compile_tools(config, kinds=kinds_for(config.plugins))``. Activation happens once per
    distinct requirement list; errors are raised as by ``activate``.
    """
    key = _cache_key(requirements)
    if key not in _kinds_cache:
        _kinds_cache[key] = activate(requirements).kinds
    return _kinds_cache[key]
