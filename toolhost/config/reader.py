"""Step 1 of a load: read each file once, in merge order, following its ``extends`` depth
first. Each file's format version is checked as it is read; each extends entry is checked
(its keys, the load's bounds, cycles, chain length) and passed through the lock guard before
the file it names is read."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolhost.config.format_version import not_a_mapping, version_problems
from toolhost.config.interpolate import expand
from toolhost.config.limits import LIMITS, MAX_EXTENDS_CHAIN
from toolhost.config.load_budget import spend_values
from toolhost.config.model import SUFFIXES, Origin
from toolhost.config.sources import entry_form, read_doc, resolve_extends
from toolhost.config.tree import Doc, Mark, node_count
from toolhost.errors import ConfigError, Problem
from toolhost.excerpt import cut
from toolhost.lockfile import LockGuard, lock_path, read_lock
from toolhost.redaction import MAX_SECRET, remember

__all__ = ["MAX_EXTENDS_ENTRIES", "Reader"]

# extends entries one load follows, all files together (an honest config has a handful):
# 100,000 entries naming one file took minutes of path resolving
MAX_EXTENDS_ENTRIES = 1_000


class Reader:
    """Reads files and their extends, in merge order, each file once."""

    def __init__(self, environ: Mapping[str, str], guard: LockGuard | None = None) -> None:
        self.environ = environ
        self.guard = guard
        self.docs: list[Doc] = []
        self.files: list[str] = []
        self.seen: set[str] = set()
        self.entries = 0  # extends entries followed in this load (MAX_EXTENDS_ENTRIES)
        self.pins: set[tuple[str, str, str]] = set()  # {repo, rev} entries (LIMITS.repo_pins)
        self.layer_guards: dict[str, LockGuard] = {}
        self.problems: list[Problem] = []
        self.version_problems: list[Problem] = []

    def read(self, file: str, layer: str, *, is_main: bool, chain: tuple[str, ...],
             origin: Origin | None = None) -> None:
        real = os.path.realpath(file)
        if real in self.seen:
            return
        self.seen.add(real)
        self.files.append(file)
        if layer in ("user", "local") and self.guard is not None:
            mine = lock_path(chain[0] if chain else file)  # the lock of that person's layer
            if os.path.realpath(mine) != os.path.realpath(self.guard.lock_file):
                self.guard.personal[real] = mine
        doc = read_doc(file, layer, self.problems, origin)
        if doc is None:
            return
        spend_values(max(node_count(doc.marks), 1))  # a mark per value: this file's
        if doc.data is None:
            doc.data = {}
        shape = not_a_mapping(doc)
        if shape is not None:
            self.problems.append(shape)
            return
        self.version_problems += version_problems(doc, is_main, self.problems)
        extends = doc.data.pop("extends", None)
        if extends is not None:
            self._extends(doc, extends, layer, (*chain, file))
            doc.marks = {p: m for p, m in doc.marks.items() if p[:1] != ("extends",)}
        self.docs.append(doc)

    def _extends(self, doc: Doc, entries: Any, layer: str, chain: tuple[str, ...]) -> None:
        # what the reader refused there (a tag, `0755`, NaN: read as null) it said already
        said = {p.key_path for p in self.problems if p.file == doc.file
                and p.key_path.startswith("extends") and p.key_path[7:8] in ("", "[", ".")}
        if "extends" in said:
            return
        if not isinstance(entries, list):
            mark = doc.marks.get(("extends",), Mark(doc.file))
            self.problems.append(Problem("expected a list of files", doc.file, mark.line,
                                         mark.column, "extends"))
            return
        fragment_layer = "extends" if layer == "project" else layer
        base_dir = Path(doc.file).parent
        for index, entry in enumerate(entries):
            key = ("extends", index)
            if said and any(k == f"extends[{index}]" or k.startswith(
                    (f"extends[{index}].", f"extends[{index}][")) for k in said):
                continue
            origin = doc.marks.get(key, Mark(doc.file)).origin(key)
            self.entries += 1
            if self.entries > MAX_EXTENDS_ENTRIES:  # each costs a resolve and realpaths
                self.problems.append(origin.problem(
                    f"more than {MAX_EXTENDS_ENTRIES:,} extends entries in one load",
                    hint="a config extends a few fragments; merge them into fewer files"))
                return
            if entry_form(entry) == "git":  # its keys, before any git runs, at their lines
                wrong = _git_keys(entry)
                if wrong is not None:
                    at = doc.marks.get((*key, wrong[0]), None) if wrong[0] else None
                    where = at.origin((*key, wrong[0])) if at is not None else origin
                    self.problems.append(where.problem(wrong[1], hint=wrong[2]))
                    continue
                self.pins.add((str(base_dir), str(entry["repo"]), str(entry.get("rev"))))
                if len(self.pins) > LIMITS.repo_pins:  # each is a clone, before any runs
                    self.problems.append(origin.problem(
                        f"more than {LIMITS.repo_pins:,} repository pins ({{repo, rev}}) in "
                        "one load: each is cloned", hint="a config pins a few repositories; "
                        "raise TOOLHOST_MAX_REPO_PINS if this is meant"))
                    return
            try:
                if isinstance(entry, str):
                    entry = self._expanded(entry)
                target = resolve_extends(entry, base_dir=base_dir, origin=origin)
                guard = self._guard_of(layer, chain[0])
                if guard is not None:
                    target = guard.pulled(entry_form(entry), entry, origin, target)
            except ConfigError as exc:
                self.problems.extend(self._unresolved(entry, origin, exc, layer, chain[0]))
                continue
            except ValueError as exc:  # a bad ${...} in the entry
                self.problems.append(origin.problem(cut(str(exc), 300)))
                continue
            except OSError as exc:  # a resolver (a plugin's, say) met the file system
                reason = exc.strerror or cut(str(exc), 200)
                self.problems.append(origin.problem(f"extends: cannot read: {reason}"))
                continue
            name = os.path.normpath(str(target))
            real = os.path.realpath(name)
            cycle = [c for c in chain if os.path.realpath(c) == real]
            if cycle:
                start = next(i for i, c in enumerate(chain) if os.path.realpath(c) == real)
                from toolhost.config.repolinks import shown_file  # (only on a cycle)

                # a cached checkout's path names no repository: say which, at which rev
                shown = " -> ".join(shown_file(c) for c in [*chain[start:], name])
                self.problems.append(origin.problem(f"extends cycle: {shown}"))
                continue
            suffix = Path(name).suffix
            if suffix.lower() not in SUFFIXES:  # read_doc would name that file, not this entry
                self.problems.append(origin.problem(
                    f"extends: {cut(name, 200)} is not a config file (unknown format "
                    f"{cut(suffix, 40)!r})", hint="a fragment is a .yaml, .yml or .toml file"))
                continue
            if len(chain) >= LIMITS.extends_chain and real not in self.seen:
                self.problems.append(_chain_too_long(chain, name, LIMITS.extends_chain,
                                                     origin))
                continue
            self.read(name, fragment_layer, is_main=False, chain=chain, origin=origin)


    def _expanded(self, entry: str) -> str:
        """An extends entry with its ``${...}`` expanded. A secret-named variable's value is
        hidden from now on: the entry's own problems (no such file, no such package) name
        the path it made, and are said before the load's other secrets are known."""
        named: list[str] = []
        try:
            return expand(entry, self.environ, secret=named)
        finally:
            remember(value for value in named if len(value) <= MAX_SECRET)

    def _unresolved(self, entry: Any, origin: Origin, exc: ConfigError, layer: str,
                    root: str) -> list[Problem]:
        """An entry's problems; a git entry's rev gone upstream gets the locked commit."""
        if entry_form(entry) != "git":
            return list(exc.problems)
        try:
            guard = self._guard_of(layer, root)
        except ConfigError:  # that layer's lock: said when its entries resolve
            return list(exc.problems)
        return list(exc.problems) if guard is None else guard.unresolved(entry, origin, exc)

    def _guard_of(self, layer: str, root: str) -> LockGuard | None:
        """The lock guard of what a file of ``layer`` pulls in: the project's for the project
        file and its fragments. The user's file and the git-ignored ``toolhost.local.*`` are
        one person's: the project's lock, which the team shares, neither records nor requires
        their sources; the lock beside that layer's file does, when there is one
        (``toolhost lock ~/.config/toolhost/config.yaml --no-layers`` writes it)."""
        if layer in ("project", "extends") or self.guard is None:
            return self.guard
        where = lock_path(root)
        if os.path.realpath(where) == os.path.realpath(self.guard.lock_file):
            return self.guard  # `toolhost lock` of the layer's file itself
        key = os.path.realpath(where)
        if key not in self.layer_guards:
            self.layer_guards[key] = LockGuard(read_lock(where), where)
        return self.layer_guards[key]


def _git_keys(entry: Any) -> tuple[str, str, str] | None:
    from toolhost.config.gitrepos import entry_problem  # (git's modules: only when needed)

    return entry_problem(entry)

def _chain_too_long(chain: tuple[str, ...], name: str, limit: int, origin: Origin) -> Problem:
    """The located problem for one link too many: the chain shown by its ends."""
    links = [*chain, name]
    shown = " -> ".join(links if len(links) <= 5 else [*links[:2], f"... ({len(links) - 4:,} "
                                                       "more)", *links[-2:]])
    return origin.problem(f"extends chain of more than {limit} files: {shown}",
                          hint="raise TOOLHOST_MAX_EXTENDS_CHAIN (at most "
                               f"{MAX_EXTENDS_CHAIN}) if this is meant")
