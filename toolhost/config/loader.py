"""``load_config``: files -> one validated, frozen ``HostConfig``.

The order of work, and why:

1. read every file (layers, then each file's ``extends`` depth first), checking each file's
   format version first: a file written for another version is reported alone, since every
   other message about it would be noise;
2. merge all files in order (user, fragments, project, local; later wins key by key);
3. interpolate ``${VAR}`` in the merged values (an overridden value is never expanded, so
   its ``${VAR:?}`` cannot fail the load) and collect secrets;
4. check and build the model, collecting every problem, then raise one ``ConfigError``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from toolhost.backends.base import BackendKind
from toolhost.backends.registry import builtin_kinds
from toolhost.config.applied import remember_applied
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
from toolhost.config.gcpause import gc_paused
from toolhost.config.interpolate import collect_declared_secrets, expand, interpolate
from toolhost.config.limits import LIMITS, MAX_EXTENDS_CHAIN
from toolhost.config.load_budget import spend_values, values_budget
from toolhost.config.merge import merge_docs, override_notes
from toolhost.config.model import SUFFIXES, HostConfig, Origin, PluginRequirement
from toolhost.config.repotree import loading_with
from toolhost.config.secret_budget import secret_budget_problem
from toolhost.config.sources import entry_form, read_doc, resolve_extends
from toolhost.config.tree import Doc, Mark, Origins, format_path, mark_for, node_count
from toolhost.errors import ConfigError, PluginError, Problem, shown
from toolhost.excerpt import cut
from toolhost.lockfile import LockGuard, lock_path, read_lock
from toolhost.lockfile.guard import guarding
from toolhost.redaction import MAX_SECRET, own_secrets, remember

__all__ = ["FORMAT_VERSION", "TOP_KEYS", "installed_versions", "load_config", "load_merged",
           "plugin_versions", "user_config_path"]

FORMAT_VERSION = 1
# extends entries one load follows, all files together (an honest config has a handful):
# 100,000 entries naming one file took minutes of path resolving
MAX_EXTENDS_ENTRIES = 1_000
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


def _too_long(merged: Doc, secrets: list[str]) -> list[Problem]:
    """A located problem per secret longer than ``MAX_SECRET``: each of its forms is looked
    for in everything toolhost writes, at a set-up cost linear in its length (200,000
    characters cost seconds, on every load), and no credential is that long. Only these
    problems are shown: the value is not among the secrets hidden, so no other message
    (which might quote it) may be."""
    found: list[Problem] = []
    for secret in secrets:
        path = _path_holding(merged.data, secret, ())
        mark = mark_for(merged.marks, path or (), merged.file)
        found.append(Problem(
            f"a secret of {len(secret):,} characters: a secret may have at most "
            f"{MAX_SECRET:,}", mark.file, mark.line, mark.column,
            format_path(path) if path else "", "a secret is a credential, a token, a "
            "password or a key: pass longer data another way, as a file the tool reads"))
    return found


def _path_holding(data: Any, secret: str, path: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The path of the first string of ``data`` holding ``secret`` (None: none does)."""
    stack: list[tuple[Any, tuple[Any, ...]]] = [(data, path)]
    while stack:  # (a loop, not recursion: a config may nest deep)
        node, where = stack.pop()
        if isinstance(node, str):
            if secret in node:
                return where
        elif isinstance(node, dict):
            stack += reversed([(v, (*where, k)) for k, v in node.items()])
        elif isinstance(node, list):
            stack += reversed([(v, (*where, i)) for i, v in enumerate(node)])
    return None


def load_merged(path: str | os.PathLike[str], *, environ: Mapping[str, str],
                layers: bool = True, problems: list[Problem] | None = None,
                guard: LockGuard | None = None, fragment: bool = False
                ) -> tuple[Doc, set[str], list[str]]:
    """Steps 1-3: the merged, interpolated data with its marks, the secrets, the files read.

    Raises ``ConfigError`` for unreadable files, syntax, versions and extends; ``${...}``
    problems go to ``problems`` when given (else they raise too). ``guard`` sees every file
    pulled in by ``extends`` before it is read.
    """
    main = str(path)
    reader = _Reader(environ, guard)
    files: list[tuple[str, str, bool]] = []  # (path, layer, is_main)
    if layers:
        user = user_config_path(environ)
        if user is not None:
            files.append((str(user), "user", False))
    files.append((main, "project", not fragment))
    if layers:
        local = _sibling(Path(main), "toolhost.local")
        if local is not None:
            files.append((str(local), "local", False))
    with values_budget():  # one budget for every file of the load, not one per file
        for file, layer, is_main in files:
            reader.read(file, layer, is_main=is_main, chain=())
    if reader.version_problems:
        raise ConfigError(reader.version_problems)
    if reader.problems:
        raise ConfigError(reader.problems)
    merged = merge_docs(reader.docs)
    found: list[Problem] = []
    secrets = interpolate(merged, environ, found)
    secrets |= collect_declared_secrets(merged.data, found, merged)
    too_long = [secret for secret in secrets if len(secret) > MAX_SECRET]
    if too_long:  # refused before anything is built or shown: see ``_too_long``
        remember(secret for secret in secrets if len(secret) <= MAX_SECRET)
        raise ConfigError(_too_long(merged, too_long))
    too_many = secret_budget_problem(merged, secrets)
    if too_many is not None:  # before the redactor sets them all up
        raise ConfigError([too_many])
    secrets |= own_secrets()  # serve's own credentials, read before the config
    remember(secrets)  # from now on nothing this process writes shows them
    if found and problems is None:
        raise ConfigError(found)
    if problems is not None:
        problems.extend(found)
    return merged, secrets, [main, *(f for f in reader.files if f != main)]


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


# a first line of TOML (`toolhost = 1`, `[servers.s]`) that YAML read as one plain string
# (text: compiled at its first use, kept in re's cache; not at every start)
_TOML_LINE = r"\s*(\[[\w.\"' -]+\]|[\w\"'.-]+\s*=)"


def _guard_beside(path: str | os.PathLike[str]) -> LockGuard:
    where = lock_path(path)
    return LockGuard(read_lock(where), where)


def user_config_path(environ: Mapping[str, str]) -> Path | None:
    """``$XDG_CONFIG_HOME/toolhost/config.{yaml,toml}`` (default ``~/.config``), if present."""
    base = environ.get("XDG_CONFIG_HOME") or os.path.join(
        environ.get("HOME") or os.path.expanduser("~"), ".config")
    return _sibling(Path(base) / "toolhost" / "config.yaml", "config")


def _sibling(beside: Path, stem: str) -> Path | None:
    for suffix in (".yaml", ".yml", ".toml"):
        candidate = beside.parent / (stem + suffix)
        if candidate.is_file():
            return candidate
    return None


def _misspelt_version_key(data: Mapping[Any, Any]) -> str | None:
    """A top-level key that is ``toolhost`` misspelt or in another case, if one is."""
    from toolhost.typos import close_matches

    keys = [k for k in data if isinstance(k, str)][:1000]
    return next((k for k in keys if k.lower() == "toolhost"), None) or next(
        (k for k in keys if close_matches(k.lower(), ["toolhost"], n=1, cutoff=0.8)), None)


_LFS_POINTER = "version https://git-lfs.github.com/spec/"
_LFS_HINT = ("this is a Git LFS pointer, not the file: a shared repository's files are read as "
             "its commit stores them, and LFS content (which the commit does not pin) is never "
             "fetched; commit the config as a plain git file (`git lfs untrack`)")

class _Reader:
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
        if not isinstance(doc.data, dict):
            toml = (isinstance(doc.data, str) and re.match(_TOML_LINE, doc.data) is not None) \
                or (isinstance(doc.data, list) and len(doc.data) == 1  # `[servers.s]`
                    and isinstance(doc.data[0], str) and "." in doc.data[0])
            lfs = isinstance(doc.data, str) and doc.data.startswith(_LFS_POINTER)
            self.problems.append(Problem(
                "a config file is a mapping of keys (toolhost:, servers:, ...)", file, 1, 1,
                hint="this file is written as TOML (key = value, [tables]): name it .toml, "
                "or write YAML (key: value)" if toml else _LFS_HINT if lfs else ""))
            return
        self._check_version(doc, is_main)
        extends = doc.data.pop("extends", None)
        if extends is not None:
            self._extends(doc, extends, layer, (*chain, file))
            doc.marks = {p: m for p, m in doc.marks.items() if p[:1] != ("extends",)}
        self.docs.append(doc)

    def _check_version(self, doc: Doc, is_main: bool) -> None:
        toml = doc.file.lower().endswith(".toml")  # the version line as this file writes it
        sep = " = " if toml else ": "
        line = f"toolhost{sep}{FORMAT_VERSION}"
        if "toolhost" not in doc.data:
            alias = next((k for k in ("version", "format", "format_version", "schema_version")
                          if k in doc.data), None)
            typo = _misspelt_version_key(doc.data) if alias is None and is_main else None
            if alias is not None:  # `version: 1`, as other tools' files say it
                at = doc.marks.get((alias,), Mark(doc.file, 1, 1))
                self.version_problems.append(Problem(
                    f"missing format version ('{alias}' is not a key of toolhost's format)",
                    doc.file, at.line, at.column, alias,
                    f"write '{line}' instead of '{alias}{sep}...'"))
            elif typo is not None:  # `tolhost: 1`, `Toolhost: 1`: "add toolhost: 1" would
                # leave the misspelt key, then refused as unknown
                at = doc.marks.get((typo,), Mark(doc.file, 1, 1))
                self.version_problems.append(Problem(
                    f"missing format version ('{cut(typo, 60)}' is not a key of toolhost's "
                    "format)", doc.file, at.line, at.column, typo,
                    f"did you mean 'toolhost'? write '{line}'"))
            elif is_main and (other := _other_kind(doc.data)) is not None:
                # `toolhost validate *.yaml` beside what `toolhost init` writes: not a config
                self.version_problems.append(Problem(
                    f"not a toolhost config: this is {other[0]}", doc.file, 1, 1, "",
                    other[1].replace("FILE", shown(doc.file))))
            elif is_main:
                self.version_problems.append(Problem(
                    "missing format version", doc.file, 1, 1, "toolhost",
                    f"add '{line}' at the top of the file; a fragment "
                    "meant to be extended is checked with `toolhost validate --fragment`"))
            return
        version = doc.data["toolhost"]
        said = [p for p in self.problems if p.file == doc.file and (
            p.key_path == "toolhost" or p.key_path.startswith(("toolhost[", "toolhost.")))]
        if said:  # `toolhost: !!binary MQ==`, `toolhost: 1e400`, an alias bomb: the reader's
            self.version_problems += said  # reason, not "version None" nor its partial value
            return
        if type(version) is not int or version != FORMAT_VERSION:  # 1.0 and true too
            mark = doc.marks.get(("toolhost",), Mark(doc.file, 1, 1))  # (lazy: only here)
            whole = isinstance(version, float) and version == FORMAT_VERSION
            self.version_problems.append(Problem(
                f"unsupported format version {version!r}: this toolhost reads version "
                f"{FORMAT_VERSION}" + (" (a whole number)" if whole else ""), doc.file,
                mark.line, mark.column, "toolhost", f"write '{line}'"))

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


def _other_kind(data: Mapping[str, Any]) -> tuple[str, str] | None:
    """What another file of toolhost's or a client's is (what it is, how it is used), by
    its keys; None for anything else (a config that lacks its version)."""
    if "cases" in data and "servers" not in data:
        return ("a policy test file (cases:)",
                "run it with `toolhost permissions test FILE`")
    if "turns" in data and "servers" not in data:
        return ("a scenario (a scripted model: turns:)",
                "run it with `toolhost run CONFIG --script FILE -p go`")
    if "mcpServers" in data:
        return ("an MCP client's file (mcpServers:)",
                "`toolhost install` and `toolhost mcp-config` write its entries")
    return None


def _chain_too_long(chain: tuple[str, ...], name: str, limit: int, origin: Origin) -> Problem:
    """The located problem for one link too many: the chain shown by its ends."""
    links = [*chain, name]
    shown = " -> ".join(links if len(links) <= 5 else [*links[:2], f"... ({len(links) - 4:,} "
                                                       "more)", *links[-2:]])
    return origin.problem(f"extends chain of more than {limit} files: {shown}",
                          hint="raise TOOLHOST_MAX_EXTENDS_CHAIN (at most "
                               f"{MAX_EXTENDS_CHAIN}) if this is meant")


def _build(merged: Doc, secrets: set[str], kinds: Mapping[str, BackendKind] | None,
           problems: list[Problem], files: list[str], guard: LockGuard
           ) -> tuple[HostConfig, Any]:
    # Problems hide secrets exactly as the finished config will (its secrets are known now).
    redact = HostConfig(version=FORMAT_VERSION, servers={}, secrets=frozenset(secrets)).redact
    check = Checker(merged.marks, merged.file, redact, merged.substituted)
    data: dict[str, Any] = merged.data
    check.known_keys(data, (), TOP_KEYS, _MISPLACED_AT_TOP)
    plugins = build_plugins(check, data["plugins"]) if "plugins" in data else ()
    listed = len(plugins)
    if plugins:  # the lock refuses an unlocked release before any of its code is imported
        held: set[str] = set()
        for lock, wanted in guard.plugin_locks(plugins):
            held |= lock.check_plugins(installed_versions(tuple(wanted)),
                                       {p.name: p.origin for p in wanted})
            if lock is not guard:  # a personal lock's findings are this load's too
                guard.problems.extend(lock.problems)
        plugins = tuple(p for p in plugins if p.name not in held)
    activation = None
    passed = kinds is not None  # the caller's kinds: no plugin activated here
    if kinds is None:
        kinds, activation = _default_kinds(check, plugins)
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


class _NoPlugins:
    """What activating no plugin returns, as far as a load uses it."""

    def apply(self, config: HostConfig) -> HostConfig:
        """Record the config's directory (``toolhost.plugins.config_dir``); nothing to add."""
        remember_applied(config.files)
        return config


def _default_kinds(check: Checker, plugins: tuple[PluginRequirement, ...]
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

