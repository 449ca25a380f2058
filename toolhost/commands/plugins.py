"""``toolhost plugins [CONFIG]``: installed plugins, what each provides, which CONFIG enables."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.config.model import PluginRequirement
    from toolhost.errors import Problem
    from toolhost.plugins import InstalledPlugin

MAX_LISTED = 20  # items of one kind shown on a plugin's line; --json lists them all

HELP = "list installed plugins, their versions, what each provides, and which CONFIG enables"

DESCRIPTION = """\
List every installed toolhost plugin (a package with an entry point in the `toolhost` group),
its version, and what it provides: backend kinds, servers, tools, permission rules and config
fragments (usable as `extends: [pkg:NAME/PATH]`).

To find out what a plugin provides, this command imports it and calls its register hook.
Loading a config never does that for a plugin the config does not list; use --no-import to
list from package metadata only.

With CONFIG, each plugin is marked as enabled (with the line of the config that lists it) or
not, and a plugin the config lists that is missing or has the wrong version is reported with
the `pip install` command that fixes it (exit status 1).

Examples:
  toolhost plugins
  toolhost plugins toolhost.yaml
  toolhost plugins toolhost.yaml --json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", nargs="?", metavar="CONFIG",
                        help="a config file: show which plugins it enables")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--no-import", action="store_true",
                        help="do not import plugins; list names and versions only")
    parser.add_argument("--no-layers", action="store_true",
                        help="ignore the user config and toolhost.local.* for CONFIG")


def main(args: argparse.Namespace) -> int:
    from packaging.utils import canonicalize_name

    from toolhost.config.model import PluginRequirement
    from toolhost.plugins import activate, installed_plugins
    from toolhost.plugins.discovery import SELF

    installed = installed_plugins()
    others = [PluginRequirement(p.name) for k, p in installed.items() if k != SELF]
    inspected = activate([] if args.no_import else others, strict=False)
    provides = {str(canonicalize_name(i.name)): dict(i.provides) for i in inspected.plugins}
    if inspected.builtins is not None:
        provides[SELF] = dict(inspected.builtins.provides)
    broken = {str(canonicalize_name(_name_in(p.message, installed))): p.message
              for p in inspected.problems}

    enabled: dict[str, PluginRequirement] = {}
    problems: list[str] = []
    unusable: dict[str, str] = {}
    if args.config:
        enabled, found = _enabled(args.config, not args.no_layers, inspected.kinds)
        problems = [str(p) for p in found]
        unusable = {str(canonicalize_name(_name_in(p.message, installed))): p.message
                    for p in found}

    rows = []
    for key, plugin in installed.items():
        req = enabled.get(key)
        rows.append({
            "name": plugin.name, "version": plugin.version, "summary": plugin.summary,
            "builtin": key == SELF,
            "enabled": True if key == SELF else (bool(req) if args.config else None),
            "enabled_at": str(req.origin) if req else None,
            "requirement": (req.name + req.specifier) if req else None,
            "entry_points": [f"{ep.name} = {ep.value}" for ep in plugin.entry_points],
            "provides": provides.get(key, {}),
            "error": unusable.get(key) or broken.get(key),
        })
    if args.json:
        print(json.dumps({"plugins": rows, "problems": problems}, indent=2))
    else:
        _print_human(rows, problems, bool(args.config), args.no_import)
    return 1 if problems else 0


def _enabled(config_path: str, layers: bool, kinds: Any
             ) -> tuple[dict[str, PluginRequirement], list[Problem]]:
    """The config's plugin requirements, and problems activating them (missing, version)."""
    from packaging.utils import canonicalize_name

    from toolhost.config import load_config
    from toolhost.errors import ConfigError
    from toolhost.plugins import activate

    # Every installed kind is offered, so that a missing plugin is reported as such rather
    # than as the unknown backend blocks it would have provided.
    try:
        config = load_config(config_path, kinds=kinds, layers=layers)
    except ConfigError as exc:
        from toolhost.config.loader import load_config as load_unlocked
        from toolhost.lockfile import LockGuard, lock_path

        try:  # which plugins it enables, when only its lock refuses it (a plugin upgraded)
            config = load_unlocked(config_path, kinds=kinds, layers=layers,
                                   lock=LockGuard(None, lock_path(config_path), verify=False))
        except ConfigError:  # an extends it cannot fetch, a tool that is wrong: its own
            return _own_plugins(config_path), list(exc.problems)  # file's `plugins:` say
        return ({str(canonicalize_name(r.name)): r for r in config.plugins},
                list(exc.problems))
    enabled = {str(canonicalize_name(r.name)): r for r in config.plugins}
    activation = activate(config.plugins, strict=False)
    return enabled, list(activation.problems)


def _own_plugins(config_path: str) -> dict[str, PluginRequirement]:
    """The plugins the config file itself lists (not those of the files it extends), read
    without loading it: what the rows say is enabled when the whole config does not load."""
    from packaging.utils import canonicalize_name

    from toolhost.config.build_top import build_plugins
    from toolhost.config.checks import Checker
    from toolhost.config.sources import read_doc

    doc = read_doc(config_path, "project", [])
    if doc is None or not isinstance(doc.data, dict) or "plugins" not in doc.data:
        return {}
    found = build_plugins(Checker(doc.marks, doc.file), doc.data["plugins"])
    return {str(canonicalize_name(r.name)): r for r in found}


def _name_in(message: str, installed: dict[str, InstalledPlugin]) -> str:
    """The plugin ``message`` is about: the installed name it quotes first ("plugin 'b' adds
    kind 'k', which 'a' already provides" is b's)."""
    found: list[tuple[int, str]] = []
    for plugin in installed.values():
        if message.startswith(f"plugin {plugin.name} "):
            return plugin.name  # (the lock's: "plugin NAME 0.2.0 is installed, locked at")
        at = message.find(f"'{plugin.name}'")
        if at >= 0:
            found.append((at, plugin.name))
    return min(found)[1] if found else ""


def _print_human(rows: list[dict[str, Any]], problems: list[str], with_config: bool,
                 no_import: bool) -> None:
    if len(rows) <= 1:
        print("No toolhost plugins installed (a plugin is a package with an entry point in "
              "the 'toolhost' group; see docs/plugins.md).")
    from toolhost.errors import shown

    def say(line: str) -> None:  # a package's metadata (any installed one, enabled or not)
        print(shown(_cut(line)))  # holds what its author wrote: no escape sequence reaches
        # the terminal, no bidi override turns a name around, no 1 MB name fills it

    for row in rows:
        if row["builtin"]:
            state = "built in, always enabled"
        elif not with_config:
            state = ""
        elif row["enabled"]:
            state = f"enabled at {row['enabled_at']}"
        else:
            state = "installed, not enabled"
        say(f"{row['name']} {row['version']}" + (f"  [{state}]" if state else ""))
        if row["summary"]:
            say(f"    {row['summary']}")
        if row["error"]:
            say(f"    error: {row['error']}")
        if no_import and not row["builtin"]:
            say(f"    entry points: {', '.join(row['entry_points'])}")
        for what, items in row["provides"].items():
            if items:
                names = items if what != "fragments" else [
                    f"pkg:{row['name']}/{f}" for f in items]
                more = len(names) - MAX_LISTED  # a plugin may register a thousand tools
                say(f"    {what}: {', '.join(names[:MAX_LISTED])}" + (
                    f" (+{more:,} more; `toolhost plugins --json` lists them all)"
                    if more > 0 else ""))
    for problem in problems:
        print(problem, file=sys.stderr)


def _cut(line: str, limit: int = 1_000) -> str:
    return line if len(line) <= limit else f"{line[:limit]}…{len(line) - limit:,} more characters"
