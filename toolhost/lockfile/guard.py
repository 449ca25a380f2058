"""``LockGuard``: checks each file a load pulls in against the lock, as it is pulled in.

The loader calls ``LockGuard.pulled`` for every ``extends`` entry it resolved, *before* the
file is parsed (a cache edited on disk was caught, and fetched again, when the repository was
resolved: ``toolhost.config.repotree``; so a hash that differs from the locked commit's file
means the lock was edited). Sources are keyed the way the lock keys them (``repo:URL@REV``
with the URL's userinfo left out, ``pkg:NAME``); a file reached by a relative ``extends``
from inside a repository counts as that repository's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolhost.config.model import Origin, PluginRequirement
from toolhost.errors import ConfigError, Problem

if TYPE_CHECKING:  # the lock's model and drift load with the first file pulled or lock read:
    # a config that pulls nothing in and has no lock (`serve`, `validate`) never needs them
    from toolhost.lockfile.drift import Pulled
    from toolhost.lockfile.model import Lock, LockedFile

__all__ = ["LockGuard", "current_guard", "guarding"]



_CURRENT: ContextVar[LockGuard | None] = ContextVar("toolhost_lock_guard", default=None)


@contextlib.contextmanager
def guarding(guard: LockGuard) -> Iterator[None]:
    """Make ``guard`` the one ``current_guard`` returns while a config is being built."""
    token = _CURRENT.set(guard)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current_guard() -> LockGuard | None:
    """The guard of the load in progress (documents pulled while building report to it)."""
    return _CURRENT.get()


class LockGuard:
    """Records what a load pulls in and, when ``verify`` is set, refuses what the lock does
    not say."""

    def __init__(self, lock: Lock | None, lock_file: Path, *, verify: bool = True,
                 hold_unlocked: bool = False) -> None:
        self.lock = lock
        self.lock_file = lock_file
        self.verify = verify and lock is not None
        # `lock --dry-run`: plugins other than locked are recorded, not imported
        self.hold_unlocked = hold_unlocked and lock is not None
        self.sources: dict[str, Pulled] = {}
        self.problems: list[Problem] = []
        self.held: dict[str, str] = {}  # plugin -> installed version, left unimported
        # files of the user's and the local layer (real path -> the lock beside that layer's
        # file): what they pull in is that person's, pinned by their lock, not the project's
        self.personal: dict[str, Path] = {}

    def pulled(self, form: str, entry: Any, origin: Origin, target: Path) -> Path:
        """Check one resolved ``extends`` target; return the path to read (the same: a
        tampered cache was fetched again when it was resolved). Raises ConfigError on
        drift."""
        source = self._source(form, entry, origin, target)
        if source is None:
            return target
        rel = target.resolve().relative_to(source.root.resolve()).as_posix()
        if self.verify:  # a moved tag first: the new commit may not have the file at all
            self._check_pin(source, rel, origin)
        from toolhost.config.limits import LIMITS
        from toolhost.lockfile.model import TooLarge, file_digest

        limit = LIMITS.file_bytes
        try:  # the reader refuses a file past the limit: it is not hashed whole first
            digest = file_digest(target, limit)
        except TooLarge as big:  # (refused here, not left to the reader: the file could
            # shrink in between and be read unpinned)
            from toolhost.config.repolinks import shown_file  # FILE of URL at REV

            raise ConfigError([origin.problem(
                f"extends: {shown_file(str(target))}: config file too large "
                f"({big.size:,} bytes, the limit is {limit:,})", hint="raise it with "
                "TOOLHOST_MAX_CONFIG_BYTES if the file is meant to be this big")]) from None
        if self.verify:
            digest = self._check(source, rel, target, digest, origin)
        source.files[rel] = digest
        return target

    def document(self, key: str, path: Path, origin: Origin) -> None:
        """A document a server is generated from and that came from elsewhere (an OpenAPI
        document fetched from a URL): recorded under ``key`` with its digest and, when there
        is a lock, refused unless it is the locked one."""
        theirs = self._personal_guard(origin)
        if theirs is not None:  # a user's or local file's document: that file's lock's
            theirs.document(key, path, origin)
            self.problems.extend(theirs.problems)
            theirs.problems.clear()
            return
        from toolhost.lockfile.drift import Pulled
        from toolhost.lockfile.model import file_digest

        digest = file_digest(path)
        if self.verify:
            assert self.lock is not None
            locked = self.lock.sources.get(key)
            name = self.lock_file.name
            if locked is None:
                self.problems.append(origin.problem(
                    f"{key} is not in {name}",
                    hint="review the document, then pin it with `toolhost lock CONFIG`"))
            elif locked.pin != digest:
                self.problems.append(origin.problem(
                    f"{key} changed since {name} ({locked.pin[:19]}… locked, {digest[:19]}… "
                    f"found at {path})", hint="review the document's changes, then accept "
                    "them with `toolhost lock CONFIG`"))
        # the root is the file itself: no other file counts as part of this source
        self.sources[key] = Pulled(key, digest, path, origin, files={path.name: digest})

    def _personal_guard(self, origin: Origin) -> LockGuard | None:
        """The guard of the lock beside the personal file ``origin`` is in (None: this
        one's); an unreadable lock there is a ConfigError, located."""
        import os

        where = self.personal.get(os.path.realpath(origin.file)) if origin.file else None
        if where is None or os.path.realpath(where) == os.path.realpath(self.lock_file):
            return None
        from toolhost.lockfile.model import read_lock

        return LockGuard(read_lock(where), where)

    def to_lock(self, plugins: dict[str, str]) -> Lock:
        """The lock that pins exactly what this load pulled in."""
        from toolhost.lockfile.model import Lock, LockedFile

        return Lock({k: LockedFile(k, s.pin, dict(s.files)) for k, s in self.sources.items()},
                    dict(plugins))

    def personal_only(self, plugins: Sequence[PluginRequirement]) -> set[str]:
        """The plugins only a user's or local file enables (no project file lists them)."""
        import os

        def mine(req: PluginRequirement) -> bool:
            return os.path.realpath(req.origin.file) in self.personal

        return {p.name for p in plugins if mine(p)} - {p.name for p in plugins if not mine(p)}

    def plugin_locks(self, plugins: Sequence[PluginRequirement]
                     ) -> list[tuple[LockGuard, list[PluginRequirement]]]:
        """Which guard checks which plugins: this one the project's, the lock beside a
        personal file the plugins only that file enables (a ConfigError when it is
        unreadable)."""
        import os

        from toolhost.lockfile.model import read_lock

        personal = self.personal_only(plugins)
        out: list[tuple[LockGuard, list[PluginRequirement]]] = [
            (self, [p for p in plugins if p.name not in personal])]
        by_lock: dict[Path, list[PluginRequirement]] = {}
        for req in plugins:
            if req.name in personal:
                by_lock.setdefault(self.personal[os.path.realpath(req.origin.file)],
                                   []).append(req)
        for where, wanted in by_lock.items():
            try:
                out.append((LockGuard(read_lock(where), where), wanted))
            except ConfigError as exc:
                self.problems.extend(exc.problems)
                out.append((LockGuard(None, where), []))
        return out

    def check_plugins(self, installed: dict[str, str], origins: dict[str, Origin]
                      ) -> set[str]:
        """Compare enabled plugins' installed versions (from their metadata) with the lock,
        before any plugin is imported; problems are kept. Returns the plugins that must not
        be imported: refused, or (``hold_unlocked``) not the locked version."""
        if self.lock is None:
            return set()
        refused = self._uninstalled(installed, origins)
        if not (self.verify or self.hold_unlocked):
            return refused
        for name, version in sorted(installed.items()):
            locked = self.lock.plugins.get(name)
            if locked == version:
                continue
            refused.add(name)
            if not self.verify:
                self.held[name] = version
                continue
            where = origins.get(name, Origin(self.lock_file.as_posix()))
            said = f"locked at {locked}" if locked else "not in the lock"
            from toolhost.lockfile.shadowed import shadowed_hint  # (only when refused)

            hint = (shadowed_hint(name, version, locked) if locked else "") or (
                f"{_pip(f'{name}=={locked}')} (the release the lock pins), or accept "
                "with `toolhost lock CONFIG`" if locked else "accept with `toolhost lock CONFIG`")
            self.problems.append(where.problem(
                f"plugin {name} {version} is installed, {said} ({self.lock_file.name})",
                hint=hint))
        return refused

    def _uninstalled(self, installed: dict[str, str], origins: dict[str, Origin]) -> set[str]:
        """A plugin the lock pins that is not installed (uninstalled, a new virtualenv): the
        release to install is the locked one, not a close name of another plugin."""
        from toolhost.plugins.discovery import EXAMPLES, canonical_name, pip_install

        assert self.lock is not None
        missing = set()
        for name, where in sorted(origins.items()):
            locked = self.lock.plugins.get(name)
            if name in installed or locked is None or canonical_name(name) in EXAMPLES:
                continue  # (an example plugin's hint says where it is installed from)
            missing.add(name)
            pip = pip_install(f"{name}=={locked}")  # quoted: a hint is pasted
            self.problems.append(where.problem(
                f"plugin '{name}' is not installed; {self.lock_file.name} pins {name} "
                f"{locked}", hint=f"{pip} (the release the lock pins), or remove it from "
                "`plugins` and run `toolhost lock CONFIG`"))
        return missing

    # -- sources ---------------------------------------------------------------------------

    def _source(self, form: str, entry: Any, origin: Origin, target: Path) -> Pulled | None:
        from toolhost.lockfile.drift import Pulled

        if form == "git":
            from toolhost.config.gitrepos import checkout_of, normalize_repo

            url = normalize_repo(str(entry["repo"]), Path(origin.file).parent)
            checkout = checkout_of(url, str(entry["rev"]))
            legacy = f"repo:{checkout.url}@{entry['rev']}"  # the URL without its userinfo
            key = self._local_key(str(entry["repo"]), url, str(entry["rev"]), origin) or legacy
            locked = self.lock.sources.get(key) or self.lock.sources.get(legacy) \
                if self.lock is not None and key not in self.sources else None
            if locked is not None and locked.pin != checkout.sha:  # the cache disagrees
                from toolhost.lockfile.remote import realigned  # with the lock: upstream

                checkout = realigned(checkout, locked.pin)  # may have moved the tag back
            return self.sources.setdefault(key, Pulled(
                key, checkout.sha, checkout.path, origin, url, str(entry["rev"]),
                legacy=legacy if key != legacy else "", ref=checkout.ref))
        if form == "pkg":
            name = str(entry)[len("pkg:"):].partition("/")[0]
            key = f"pkg:{name}"
            rel = str(entry)[len("pkg:"):].partition("/")[2]
            root = target
            for _ in Path(rel).parts:
                root = root.parent
            return self.sources.setdefault(key, Pulled(key, _version(name), root, origin))
        real = target.resolve()
        naming = Path(origin.file).resolve()
        for source in self.sources.values():  # a relative extends inside a pulled source
            if real.is_relative_to(source.root.resolve()):
                return source
        for source in self.sources.values():  # fail closed: what a pulled file names is
            if naming.is_relative_to(source.root.resolve()):  # pinned with it, or refused
                raise ConfigError([origin.problem(
                    f"extends: {real} is outside {source.key}, which names it: it would be "
                    "used unpinned", hint="extend only files of the same source, or name "
                    "another with {repo, rev, path}")])
        return None

    def unresolved(self, entry: Any, origin: Origin, exc: ConfigError) -> list[Problem]:
        """The problems of a git entry that did not resolve; when its rev no longer exists
        (a tag deleted upstream) and the lock pins it, the hint names the reviewed commit."""
        import dataclasses

        first = exc.problems[0] if exc.problems else None
        if (self.lock is None or first is None
                or ("has no tag" not in first.message and "has no file" not in first.message)
                or not isinstance(entry.get("repo"), str) or not isinstance(entry.get("rev"), str)):
            return list(exc.problems)
        from toolhost.config.gitrepos import normalize_repo
        from toolhost.config.url_secrets import shown_url

        url = normalize_repo(entry["repo"], Path(origin.file).parent)
        key = (self._local_key(entry["repo"], url, entry["rev"], origin)
               or f"repo:{shown_url(url)}@{entry['rev']}")
        locked = self.lock.sources.get(key)
        if locked is None:
            return list(exc.problems)
        if "has no file" in first.message and self.verify:  # a tag moved to a commit
            # without the file: the move is what to say
            return self._moved_without(entry, url, key, locked, origin, exc)
        hint = (f"{self.lock_file.name} pins it at commit {locked.pin}, the reviewed one: "
                f"`rev: {locked.pin}` keeps it (then `toolhost lock CONFIG`)")
        return [dataclasses.replace(first, hint=hint), *exc.problems[1:]]

    def _moved_without(self, entry: Any, url: str, key: str, locked: LockedFile,
                       origin: Origin, exc: ConfigError) -> list[Problem]:
        """A file missing at the cached commit of a tag or branch the lock pins at another
        commit: the move is the news (with the diff that deletes it), not the missing file."""
        from toolhost.config.gitrepos import checkout_of
        from toolhost.lockfile.drift import Pulled
        from toolhost.lockfile.remote import realigned

        try:
            checkout = realigned(checkout_of(url, str(entry["rev"])), locked.pin)
        except ConfigError:
            return list(exc.problems)
        if checkout.sha == locked.pin:
            return list(exc.problems)
        path = str(entry.get("path", "toolhost.yaml"))
        source = Pulled(key, checkout.sha, checkout.path, origin, url, str(entry["rev"]),
                        ref=checkout.ref)
        try:
            self._check_pin(source, path, origin)
        except ConfigError as moved:
            return list(moved.problems)
        return list(exc.problems)

    def _local_key(self, written: str, url: str, rev: str, origin: Origin) -> str:
        """``repo:PATH@REV`` for a repository named by a relative local path (``repo:
        ../team-config``), PATH relative to the lock's directory: the lock is committed, and
        a colleague's or CI's checkout is elsewhere on their disk. "" for a URL, an absolute
        or ``~`` path, or a path written inside a pulled repository that is not itself
        pinned by a relative path (it is relative to that repository's URL)."""
        import os

        from toolhost.config.repotree import checkout_root

        if ("://" in written or written.startswith(("/", "~")) or "://" not in url
                or not url.startswith("file://")):
            return ""
        root = checkout_root(origin.file)
        if root is not None and not any(  # beside a repository pinned by a relative path
                source.legacy and source.root.resolve() == root.resolve()
                for source in self.sources.values()):
            return ""
        from urllib.parse import unquote, urlsplit

        where = unquote(urlsplit(url).path)
        rel = os.path.relpath(where, os.path.realpath(self.lock_file.parent))
        return f"repo:{Path(rel).as_posix()}@{rev}"

    def _locked(self, source: Pulled) -> LockedFile | None:
        assert self.lock is not None
        locked = self.lock.sources.get(source.key)
        if locked is None and source.legacy:  # an older toolhost keyed a local path by its
            locked = self.lock.sources.get(source.legacy)  # absolute file:// URL
        return locked

    def _other_revs(self, key: str) -> list[str]:
        """The revs the lock pins the repository of ``key`` (``repo:URL@REV``) at, cut."""
        from toolhost.excerpt import cut
        from toolhost.visible import visible

        assert self.lock is not None
        repo, at, _ = key.rpartition("@")
        if not key.startswith("repo:") or not at:
            return []
        revs = sorted(k.rpartition("@")[2] for k in self.lock.sources
                      if k.rpartition("@")[0] == repo)
        return [visible(cut(rev, 80)) for rev in revs[:3]] + (["..."] if len(revs) > 3 else [])

    def _check_pin(self, source: Pulled, rel: str, origin: Origin) -> None:
        """Refuse a source whose commit (or version) is not the locked one, with the diff."""
        locked = self._locked(source)
        if locked is not None and source.pin != locked.pin:
            from toolhost.lockfile.drift import pin_drift

            why = pin_drift(source, locked.pin, rel, self.lock_file.name)
            raise ConfigError([origin.problem(
                f"{source.key} changed since {self.lock_file.name}: {why.message}",
                hint=why.hint).with_detail(why.detail)])

    def _check(self, source: Pulled, rel: str, target: Path, digest: str,
               origin: Origin) -> str:
        locked = self._locked(source)
        name = self.lock_file.name
        if locked is None or rel not in locked.files:
            what = source.key if locked is None else f"{rel} of {source.key}"
            other = self._other_revs(source.key) if locked is None else []
            said = (f" ({name} pins this repo at {', '.join(other)}: the config's rev was "
                    "changed and the lock was not, by hand or by an interrupted `toolhost "
                    "update`)") if other else ""
            raise ConfigError([origin.problem(
                f"{what} is not in {name}{said}", hint="review it, then pin it with "
                "`toolhost lock CONFIG`" + (" (or put the rev back)" if other else ""))])
        if digest == locked.files[rel]:
            return digest
        if source.key.startswith("repo:"):
            # the work tree was compared with the locked commit before this file was read
            # (repotree.clean_or_refetch: an edited cache is cloned again there), so the
            # commit's file has these bytes and the lock's hash is what was edited
            raise ConfigError([origin.problem(
                f"{rel} of {source.key} at the locked commit {locked.pin[:12]} is "
                f"{digest[:19]}…, but {name} says {locked.files[rel][:19]}…: a commit's "
                f"files never change, so the hash in {name} was edited (by hand or a merge)",
                hint=f"see `git log -p {name}`; once reviewed, `toolhost lock CONFIG` writes "
                "the commit's hash")])
        raise ConfigError([origin.problem(
            f"{rel} of {source.key} does not match {name} ({locked.files[rel][:19]}… "
            f"locked, {digest[:19]}… found)",
            hint="reinstall the package, or review and accept with `toolhost lock CONFIG`")])


def _pip(requirement: str) -> str:
    """``pip install REQ`` quoted for a shell: the version is the lock's text, and a hint
    is pasted."""
    from toolhost.plugins.discovery import pip_install

    return pip_install(requirement)


def _version(name: str) -> str:
    import importlib.metadata as md  # ~20 ms of imports: only for a locked package

    try:
        return md.version(name)
    except md.PackageNotFoundError:
        try:
            found = md.packages_distributions().get(name, [])
            return md.version(found[0]) if found else "unknown"
        except md.PackageNotFoundError:
            return "unknown"
