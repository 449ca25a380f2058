"""``toolhost lock CONFIG``: pin everything the config pulls in, in CONFIG's lock file."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass

HELP = "pin what the config pulls in (repos, package fragments, plugins) in its .lock file"

DESCRIPTION = """\
Resolve everything CONFIG pulls in from elsewhere and write it to the lock file beside it
(toolhost.yaml -> toolhost.lock): for each `extends: {repo, rev, path}` the commit the rev
resolved to and a SHA-256 of every file used; for each `pkg:` fragment the package version
and file hashes; the installed version of every plugin the config enables; for every
imported MCP server (`mcp:`), the definition of each imported tool (name, description,
schemas, annotations), so an upstream that changes a tool after review is caught; for
every OpenAPI document fetched from a URL (`openapi: {url: ...}`), a SHA-256 of it.

While a lock exists, every load (run, serve, validate, tools, ...) resolves the same things
again and refuses any difference with a diff: a tag moved upstream, a cached file edited on
disk (fetched again; refused if it still differs), a plugin upgraded, a source not locked.
Review the diff, then run `toolhost lock` again to accept it. Commit the lock with the config.
`--check` also asks each pinned repository where its tags and branches point now (a cache
keeps the reviewed commit, so only a fresh clone would see a moved tag): a tag moved or
deleted upstream fails the check with the diff; a repository it cannot reach is a note.

The config is checked as `toolhost validate` checks it (tools compiled, rules against
what they name) first: a config validate refuses is not locked.

Prints what changed against the previous lock. Exit status: 0 written (or, with --check,
up to date); 1 the config does not load or validate refuses it, or --check found a
difference.

Examples:
  toolhost lock toolhost.yaml              pin (or accept the reviewed changes)
  toolhost lock toolhost.yaml --check      in CI: fail when the lock is missing or stale
  toolhost lock toolhost.yaml --dry-run    show what would change, write nothing
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("config", metavar="CONFIG", help="the config file (YAML or TOML)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 unless the lock exists and matches")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the changes without writing the lock")
    parser.add_argument("--no-layers", action="store_true",
                        help="ignore the user config and toolhost.local.* files")


def write_for(config: str, *, layers: bool = True, dry_run: bool = False,
              upstream: bool = False, local_notes: bool = True) -> list[str]:
    """Load ``config`` recording what it pulls in, write its lock; the changes made.
    ``upstream`` (``lock --check``): also a pinned tag or branch that names another commit in
    its repository now (``toolhost.lockfile.remote``). ``local_notes``: a local team repository
    with uncommitted changes is said on stderr (``toolhost.lockfile.localrepo``)."""
    from toolhost.config.loader import load_config, plugin_versions
    from toolhost.errors import ConfigError, Problem, shown
    from toolhost.lockfile import LockGuard, lock_path, read_lock
    from toolhost.lockfile.model import write_lock

    where = lock_path(config)
    unreadable = ""
    try:
        old = read_lock(where)
    except ConfigError as exc:
        from toolhost.lockfile.model import NewerLockError

        # `lock --check` and `--dry-run` report it; accepting writes it anew, but never over
        # a newer toolhost's lock
        if dry_run or isinstance(exc, NewerLockError):
            raise
        old, unreadable = None, exc.problems[0].message
    # a dry run imports no plugin release the lock does not name: it is reported, not run
    guard = LockGuard(old, where, verify=False, hold_unlocked=dry_run)
    found_problems: list[Problem] = []
    loaded = load_config(config, layers=layers, lock=guard,
                         problems=found_problems if dry_run else None)
    if not guard.held:  # (with a plugin held, its tools cannot check)
        from toolhost.commands._checks import check_loaded

        # what validate refuses (a schema's minimum above its maximum, a template that does
        # not parse, a rule naming no tool) is no config to pin: one check for both
        errors = check_loaded(loaded, found_problems).errors
        if errors:
            raise ConfigError(errors)
    personal = guard.personal_only(loaded.plugins)  # a user's or local file's: their lock's
    new = guard.to_lock({name: version for name, version in
                         {**plugin_versions(loaded), **guard.held}.items()
                         if name not in personal})
    if any(server.upstream is not None for server in loaded.servers.values()):
        import anyio

        from toolhost.compile import compile_tools
        from toolhost.lockfile import Lock
        from toolhost.lockfile.personal import LayeredPins, personal_files

        # record what the upstreams offer now; a personal file's are its lock's, not ours
        pins = LayeredPins(None, None, personal_files(loaded.files), verify=False)
        compiled = compile_tools(loaded, pins=pins)
        anyio.run(compiled.aclose)
        # a required: false upstream that did not start: its pins would silently go
        down = [loaded.servers[name].upstream.origin.problem(
            f"cannot lock upstream server '{name}': it did not start ({upstream.pending})",
            hint="lock when it answers (`toolhost validate --connect` tries it)")
            for name, upstream in compiled.upstreams.items() if upstream.pending]
        if down:
            raise ConfigError(down)
        new = Lock(new.sources, new.plugins, pins.recorded)
    from toolhost.lockfile.changes import changes  # here: `--help` imports every command

    found = changes(old, new, diff=lambda key, was, rel: _diff_of(guard, key, was, rel),
                    brought=lambda key: _brought(loaded, guard, key),
                    policy=lambda key, was, now: _policy(guard, key, was, now))
    if old is not None and old.credentials_in_keys:  # written by an older toolhost
        found = [*found, "repo source keys held a URL's user name or password: written "
                 "without them"]
    if old is not None and any(s.legacy in old.sources for s in guard.sources.values()
                               if s.legacy):  # keyed by an older toolhost
        found = [*found, "repositories named by a relative local path are pinned by that "
                 "path, relative to the lock, not by this machine's file:// URL (so other "
                 "checkouts of the project load it): `toolhost lock` rewrites their keys"]
    if unreadable:  # a merge's conflict markers, a hand edit: what the config pulls in now
        found = [*found, f"{where} was not a lock toolhost can read ({unreadable}): written "
                 "anew from what the config pulls in (review the diff of the lock)"]
    if upstream:
        from toolhost.lockfile.remote import moved_revs

        moved, notes = moved_revs(guard.sources.values())
        found = [*found, *moved]
        for note in notes:
            print(f"{shown(str(where))}: note: {shown(note)}", file=sys.stderr)
    if local_notes:
        from toolhost.lockfile.localrepo import local_changes

        for note in local_changes(guard.sources.values()):
            print(f"{shown(str(where))}: note: {shown(note)}", file=sys.stderr)
    if not dry_run and (old is None or found):
        write_lock(where, new)
    # a reviewer's terminal shows them: what a repository's file, an upstream's tool or a
    # git message holds (an escape sequence that rewrites the screen, a bidi override that
    # shows 'gnirts' as 'string') is written as \x1b, \u202e, ..., line by line
    return ["\n".join(shown(part) for part in line.split("\n")) for line in found]


def _diff_of(guard: Any, key: str, was: str, rel: str) -> str:
    """The diff of ``rel`` from commit ``was`` to what this load pulled in for ``key``."""
    from toolhost.lockfile.drift import repo_diff

    source = guard.sources.get(key)
    return "" if source is None else repo_diff(source, was, rel)


def _brought(loaded: Any, guard: Any, key: str) -> list[str]:
    """The rules, settings, servers and tools the newly pinned ``key`` brings in."""
    from toolhost.lockfile.contents import brought_by

    source = guard.sources.get(key)
    return [] if source is None else brought_by(loaded, source.root)


def _policy(guard: Any, key: str, was: Any, now: Any) -> list[str]:
    """What moving repository ``key`` from ``was`` to ``now`` changes in its rules,
    settings, servers and tools (the locked commit fetched to read them)."""
    from toolhost.lockfile.drift import fetch_locked
    from toolhost.lockfile.rulediff import policy_changes

    source = guard.sources.get(key)
    if source is None or not key.startswith("repo:") or fetch_locked(source, was.pin):
        return []  # the file diffs below say why the old commit cannot be had
    return policy_changes(source.root, was.pin, was.files, now.files)


MAX_LISTED = 200  # changes listed one a line; a hand-made lock can hold tens of thousands


def _listed(found: list[str]) -> list[str]:
    """``found`` for the terminal: at most ``MAX_LISTED`` lines, then how many more."""
    if len(found) <= MAX_LISTED:
        return found
    return [*found[:MAX_LISTED], f"... and {len(found) - MAX_LISTED:,} more changes"]


def main(args: argparse.Namespace) -> int:
    from toolhost.config import load_config
    from toolhost.config.sources import read_doc
    from toolhost.errors import ConfigError, Problem, shown
    from toolhost.lockfile import lock_path, read_lock

    config = shown(args.config)  # a line break in a name must not forge a second line
    where = shown(str(lock_path(args.config)))
    if args.check:
        problems: list[Problem] = []
        if read_doc(args.config, "project", problems) is None:  # missing, empty, unreadable
            raise ConfigError(problems)
        if read_lock(lock_path(args.config)) is None:
            from toolhost.commands.init import sh

            print(f"{config}: no lock file {where} (create it with `toolhost lock "
                  f"{shown(sh(args.config))}`)", file=sys.stderr)
            return 1
        load_config(args.config, layers=not args.no_layers)  # refuses drift like every load
        found = write_for(args.config, layers=not args.no_layers, dry_run=True, upstream=True)
        for line in _listed(found):  # sources the lock has that the config no longer uses
            print(f"{where}: {line}", file=sys.stderr)
        if found:
            return 1
        print(f"{where}: up to date")
        return 0
    existed = os.path.lexists(lock_path(args.config))  # False, not OSError, for a name too long
    found = write_for(args.config, layers=not args.no_layers, dry_run=args.dry_run)
    for line in _listed(found):
        print(line)
    if args.dry_run:
        print(f"(dry run: {where} not written)")
    elif not found and existed:
        print(f"{where}: up to date")
    else:
        print(f"wrote {where}")
    return 0
