"""``load_config``: files -> one validated, frozen ``HostConfig``.

The order of work, and why:

1. read every file (layers, then each file's ``extends`` depth first), checking each file's
   format version first: a file written for another version is reported alone, since every
   other message about it would be noise;
2. merge all files in order (user, fragments, project, local; later wins key by key);
3. interpolate ``${VAR}`` in the merged values (an overridden value is never expanded, so
   its ``${VAR:?}`` cannot fail the load) and collect secrets;
4. check and build the model, collecting every problem, then raise one ``ConfigError``.

Each step lives in a module of its own: ``layers`` (steps 1-3, with ``reader`` for each file
and its extends, ``format_version`` for what a file must be), ``plugin_kinds`` (the plugins'
lock check and activation) and the ``build_*`` modules (step 4).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from toolhost.backends.base import BackendKind
from toolhost.config.backend_block import BackendChecker
from toolhost.config.build_servers import build_servers
from toolhost.config.build_top import (
    build_permissions,
    build_plugins,
    build_run,
    build_serve_settings,
    build_settings,
)
from toolhost.config.checks import Checker, capped
from toolhost.config.format_version import FORMAT_VERSION
from toolhost.config.gcpause import gc_paused
from toolhost.config.layers import load_merged, user_config_path
from toolhost.config.merge import override_notes
from toolhost.config.model import HostConfig
from toolhost.config.plugin_kinds import (
    default_kinds,
    installed_versions,
    locked_plugins,
    plugin_versions,
)
from toolhost.config.repotree import loading_with
from toolhost.config.tree import Doc, Origins
from toolhost.errors import ConfigError, Problem
from toolhost.lockfile import LockGuard, lock_path, read_lock
from toolhost.lockfile.guard import guarding

__all__ = ["FORMAT_VERSION", "TOP_KEYS", "installed_versions", "load_config", "load_merged",
           "plugin_versions", "user_config_path"]

TOP_KEYS = ("toolhost", "extends", "servers", "permissions", "plugins", "settings", "run",
            "serve")
# keys of a server, a tool or permissions written at the top level: where they go instead
_MISPLACED_AT_TOP = {
    **{key: f"'{key}' is a key of a server: write it under servers: {{NAME: {{{key}: ...}}}}"
       for key in ("tools", "cwd", "env", "base_url", "headers", "auth", "mcp", "openapi",
                   "resources", "prompts")},
    **{key: f"'{key}' is a key of a tool: write it under servers: {{NAME: {{tools: {{TOOL: "
            f"{{{key}: ...}}}}}}}}" for key in ("command", "python", "http", "params")},
    **{key: f"'{key}' is a key of permissions: write it under permissions: {{{key}: ...}}"
       for key in ("allow", "deny", "ask", "default", "ask_mode", "audit_log")},
}


@gc_paused
def load_config(path: str | os.PathLike[str], *, kinds: Mapping[str, BackendKind] | None = None,
                environ: Mapping[str, str] | None = None, layers: bool = True,
                lock: LockGuard | None = None, fragment: bool = False,
                problems: list[Problem] | None = None,
                merged_out: list[Doc] | None = None) -> HostConfig:
    """Load ``path`` with its extends (and, with ``layers``, the user and local layers).

    ``kinds`` are the backend kinds tools may use; None means the built-in kinds plus those
    of the plugins the config enables. When a lock file lies beside ``path``
    (``toolhost.yaml`` -> ``toolhost.lock``), everything pulled in is checked against it;
    ``lock`` replaces that check (``toolhost lock`` passes one that only records). With
    ``fragment``, ``path`` is a file meant to be extended and may omit the format version.
    Raises ``ConfigError`` listing every problem found. With ``problems`` (``validate``),
    the problems of a config that was read are appended there instead and the config built
    from everything that checked is returned, so later stages (rules, compile) still run;
    files that cannot be read or parsed at all still raise. With ``merged_out``, the merged
    data and marks the config was built from are appended to it (``tools --explain``: the
    files are not read twice).
    """
    env = os.environ if environ is None else environ
    collect = problems
    problems = []  # ${...} problems, then every other one: all at once
    guard = lock if lock is not None else _guard_beside(path)
    try:
        merged, secrets, read = load_merged(path, environ=env, layers=layers,
                                            problems=problems, guard=guard, fragment=fragment)
    except ConfigError as exc:  # a fragment that does not parse, in the cache: say whose
        from toolhost.config.repolinks import name_checkouts  # (only when it failed)

        raise type(exc)(name_checkouts(exc.problems)) from exc
    if merged_out is not None:
        merged_out.append(merged)
    with guarding(guard), loading_with(env):  # documents pulled while building (OpenAPI
        # URLs) are locked too, and cached where this load's environment says
        config, activation = _build(merged, secrets, kinds, problems, read, guard)
    problems.extend(guard.problems)
    if problems:
        from toolhost.config.repolinks import name_checkouts

        problems = name_checkouts(problems)
        order = {file: index for index, file in enumerate(read)}
        problems.sort(key=lambda p: (order.get(p.file, len(order)), p.line, p.column))
        if collect is None:  # (validate caps what it prints itself, compile's problems too)
            raise ConfigError(capped(problems, os.fspath(path)))
        collect.extend(problems)
    if activation is not None:
        config = activation.apply(config)
    return config


def _guard_beside(path: str | os.PathLike[str]) -> LockGuard:
    where = lock_path(path)
    return LockGuard(read_lock(where), where)


def _build(merged: Doc, secrets: set[str], kinds: Mapping[str, BackendKind] | None,
           problems: list[Problem], files: list[str], guard: LockGuard
           ) -> tuple[HostConfig, Any]:
    # Problems hide secrets exactly as the finished config will (its secrets are known now).
    redact = HostConfig(version=FORMAT_VERSION, servers={}, secrets=frozenset(secrets)).redact
    check = Checker(merged.marks, merged.file, redact, merged.substituted, merged.spelled)
    data: dict[str, Any] = merged.data
    check.known_keys(data, (), TOP_KEYS, _MISPLACED_AT_TOP)
    plugins = build_plugins(check, data["plugins"]) if "plugins" in data else ()
    listed = len(plugins)
    if plugins:  # before any of their code is imported
        plugins = locked_plugins(guard, plugins)
    activation = None
    passed = kinds is not None  # the caller's kinds: no plugin activated here
    if kinds is None:
        kinds, activation = default_kinds(check, plugins)
    config = HostConfig(
        version=FORMAT_VERSION,
        servers=build_servers(check, data.get("servers", {}), BackendChecker(
            kinds, plugin_missing=len(plugins) < listed or (bool(plugins) and activation is None
                                                            and not passed))),
        permissions=build_permissions(check, data.get("permissions", {})),
        plugins=plugins,
        settings=build_settings(check, data.get("settings", {})),
        run=build_run(check, data.get("run", {})),
        serve=build_serve_settings(check, data.get("serve", {})),
        files=tuple(files),
        secrets=frozenset(secrets),
        origins=Origins(merged.marks),
        notes=tuple(override_notes(merged)),
    )
    problems.extend(check.problems)
    return config, activation
