"""The lock file's value objects, and reading and writing them as stable, reviewable JSON.

::

    {
      "toolhost_lock": 1,
      "sources": {
        "repo:https://git.example/team/config@v1.2.0": {
          "commit": "9f8e7d6c...",
          "files": {"base.yaml": "sha256:..."}
        },
        "pkg:toolhost-files": {"version": "0.1.0", "files": {"presets/readonly.yaml": "sha256:..."}}
      },
      "plugins": {"toolhost-files": "0.1.0"}
    }

Keys are sorted and the layout fixed, so a lock diff in review shows exactly what moved.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolhost.errors import ConfigError, Problem
from toolhost.jsontext import key_position as _at  # where a wrong value is

__all__ = ["LOCK_VERSION", "MAX_LOCK_BYTES", "Lock", "LockedFile", "NewerLockError",
           "TooLarge", "file_digest", "plain_key", "read_lock", "write_lock"]

LOCK_VERSION = 1
MAX_LOCK_BYTES = 4 * 1024 * 1024  # a lock lists files and versions; megabytes mean tampering


@dataclass(frozen=True)
class LockedFile:
    """One source the config pulled in: a repo at a rev, or an installed package."""

    key: str  # "repo:URL@REV", "pkg:NAME" or "openapi:SERVER"
    pin: str  # the commit a repo's rev resolved to, the package's version, a document's digest
    files: Mapping[str, str] = field(default_factory=dict)  # relative path -> "sha256:..."


@dataclass(frozen=True)
class Lock:
    """Everything a config pulled in, as it was when locked."""

    sources: Mapping[str, LockedFile] = field(default_factory=dict)
    plugins: Mapping[str, str] = field(default_factory=dict)  # distribution -> version
    # imported MCP servers: server -> upstream tool name -> its definition as reviewed
    upstreams: Mapping[str, Mapping[str, Mapping[str, Any]]] = field(default_factory=dict)
    # read from a lock an older toolhost wrote with a URL's password in a source key (the
    # keys are read without it; `toolhost lock` rewrites the file)
    credentials_in_keys: bool = field(default=False, compare=False)

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "toolhost_lock": LOCK_VERSION,
            "sources": {
                key: {_pin_name(key): src.pin, "files": dict(sorted(src.files.items()))}
                for key, src in sorted(self.sources.items())
            },
            "plugins": dict(sorted(self.plugins.items())),
        }
        if self.upstreams:
            data["upstreams"] = {server: dict(sorted(tools.items()))
                                 for server, tools in sorted(self.upstreams.items())}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _pin_name(key: str) -> str:
    if key.startswith("openapi:"):
        return "digest"
    return "commit" if key.startswith("repo:") else "version"


class TooLarge(Exception):
    """A file past the size a digest was asked to stop at (``size``: its bytes, as far as
    they were counted)."""

    def __init__(self, size: int) -> None:
        super().__init__(size)
        self.size = size


def file_digest(path: Path, limit: int | None = None) -> str:
    """``sha256:<hex>`` of a file's bytes; past ``limit`` bytes, ``TooLarge`` (nothing more is
    read: a file the reader refuses as too large is not hashed whole first)."""
    import hashlib  # ~4 ms of a fresh process: only when a lock is checked or written

    from toolhost.fileopen import open_regular

    digest = hashlib.sha256()
    with os.fdopen(open_regular(str(path)), "rb") as handle:  # a FIFO is refused, not awaited
        size = os.fstat(handle.fileno()).st_size
        if limit is not None and size > limit:
            raise TooLarge(size)
        read = 0
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            read += len(chunk)
            if limit is not None and read > limit:  # it grew after fstat
                raise TooLarge(read)
            digest.update(chunk)
    return "sha256:" + digest.hexdigest()


def read_lock(path: Path) -> Lock | None:
    """The lock at ``path``; None if there is none. ConfigError (located) if it is malformed
    or cannot be read: it is read with the config loader's guards (a regular file of at most
    ``MAX_LOCK_BYTES``, strict UTF-8, strict JSON), so a FIFO or a device in its place is an
    error, never a hang."""
    from toolhost.jsontext import read_json_file

    try:
        size = path.stat().st_size
    except FileNotFoundError:
        if os.path.islink(path):  # a lock that is not there is no reason to check nothing
            raise _bad(path, f"a symlink to {os.readlink(path)!r}, which does not exist",
                       hint="restore what it points to, or remove the link and run "
                       "`toolhost lock CONFIG`") from None
        return None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:  # no file can have this name: there is no lock
            return None  # (and the config's own name is reported when it is read)
        size = 0  # a symlink loop, a directory on the way: read_json_file says which
    except ValueError:  # a NUL in the name: read_json_file says so
        size = 0
    if size > MAX_LOCK_BYTES:
        raise _bad(path, f"{size:,} bytes is too large for a lock file (at most "
                   f"{MAX_LOCK_BYTES:,})")
    problems: list[Problem] = []
    read = read_json_file(str(path), problems, what="lock file", limit=MAX_LOCK_BYTES)
    if read is None:
        from toolhost.lockfile.values import conflict_problem

        text = _text(path)
        marked = conflict_problem(path, text) if text is not None else None
        raise ConfigError([marked] if marked else [replace(p, hint=_other_format(text) + _FIX)
                                                   for p in problems])
    lock = _parse(path, read[1], read[0])
    from toolhost.lockfile.values import unknown_keys, value_problems

    newer = unknown_keys(path, read[0], read[1])
    if newer:
        raise NewerLockError(newer)
    written = read[1].get("sources") if isinstance(read[1], dict) else None
    wrong = value_problems(path, read[0], lock.sources, lock.plugins,
                           {plain_key(k): k for k in written} if isinstance(written, dict)
                           else None)
    if wrong:
        raise ConfigError(wrong)
    return lock


def _text(path: Path) -> str | None:
    """The lock's text again, for a closer look at why it is not JSON (it was read once,
    within the size limit, so it is a regular file of at most ``MAX_LOCK_BYTES``)."""
    from toolhost.fileopen import open_regular

    try:
        with os.fdopen(open_regular(str(path)), "rb") as handle:
            return handle.read(MAX_LOCK_BYTES + 1).decode("utf-8", "replace")
    except (OSError, ValueError):
        return None


class NewerLockError(ConfigError):
    """A lock of a format newer than this toolhost reads: upgrade; never write it anew (that
    would silently turn a teammate's lock back into an older format)."""


def _parse(path: Path, data: Any, text: str = "") -> Lock:
    version = data.get("toolhost_lock") if isinstance(data, dict) else None
    if isinstance(version, int) and not isinstance(version, bool) and version > LOCK_VERSION:
        from toolhost import __version__

        raise NewerLockError([Problem(
            f"written by a newer toolhost (lock format {version}; toolhost {__version__} reads "
            f"format {LOCK_VERSION})", str(path), *_at(text, "toolhost_lock"), "toolhost_lock",
            "upgrade toolhost to the version your team uses (the README's 'Install it into "
            "your project'); `toolhost lock` does not write an older format over it")])
    if not isinstance(data, dict) or type(data.get("toolhost_lock")) is not int or \
            data["toolhost_lock"] != LOCK_VERSION:  # (true and 1.0 are == 1 in Python)
        raise _bad(path, f"not a toolhost lock of version {LOCK_VERSION}",
                   *_at(text, "toolhost_lock"), hint="regenerate it with `toolhost lock CONFIG`")
    sources: dict[str, LockedFile] = {}
    raw_sources = data.get("sources", {})
    if not isinstance(raw_sources, dict):
        raise _bad(path, "'sources' must be an object", *_at(text, "sources"), key="sources")
    credentials = False
    for raw_key, entry in raw_sources.items():
        key = plain_key(raw_key)
        credentials |= key != raw_key
        where = f"sources.{key}"
        pin = entry.get(_pin_name(key)) if isinstance(entry, dict) else None
        files = entry.get("files", {}) if isinstance(entry, dict) else None
        if (not isinstance(pin, str) or not isinstance(files, dict)
                or not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items())):
            wrong = ([] if not isinstance(entry, dict) else [_pin_name(key)]
                     if not isinstance(pin, str) else ["files"] if not isinstance(files, dict)
                     else ["files", next(k for k, v in files.items() if not isinstance(v, str))])
            raise _bad(path, f"expected {{{_pin_name(key)}: string, files: {{path: hash}}}}",
                       *_at(text, "sources", raw_key, *wrong), key=where)
        sources[key] = LockedFile(key, pin, dict(files))
    plugins = data.get("plugins", {})
    if not isinstance(plugins, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in plugins.items()):
        wrong = [] if not isinstance(plugins, dict) else \
            [next(k for k, v in plugins.items() if not isinstance(v, str))]
        raise _bad(path, "'plugins' must map distribution names to versions",
                   *_at(text, "plugins", *wrong), key="plugins")
    upstreams = data.get("upstreams", {})
    if not isinstance(upstreams, dict) or not all(
            isinstance(tools, dict) and all(isinstance(d, dict) for d in tools.values())
            for tools in upstreams.values()):
        wrong = [] if not isinstance(upstreams, dict) else \
            [next(k for k, t in upstreams.items()
                  if not isinstance(t, dict) or not all(isinstance(d, dict) for d in t.values()))]
        raise _bad(path, "'upstreams' must map servers to {tool: definition}",
                   *_at(text, "upstreams", *wrong), key="upstreams")
    return Lock(sources, dict(plugins), upstreams, credentials_in_keys=credentials)


def plain_key(key: str) -> str:
    """A source key as this version writes it: ``repo:URL@REV`` without the URL's userinfo
    (its password is a secret, and the lock is committed)."""
    if not key.startswith("repo:") or "@" not in key:
        return key
    from toolhost.config.url_secrets import shown_url

    return "repo:" + shown_url(key[len("repo:"):])


def write_lock(path: Path, lock: Lock) -> None:
    """Write ``lock`` atomically (a reader never sees half a file), readable as the other
    files of the project are (the existing lock's mode, or the umask's: a lock only its
    writer can read broke every other account's loads). A symlink is written through (the
    link stays) when it leads to a lock; a link to any other file is refused. What cannot be
    written is a located ``ConfigError``, not an internal error."""
    import tempfile  # only `toolhost lock` writes: not on every start's import path

    where = Path(os.path.realpath(path)) if os.path.islink(path) else path
    if where is not path and where.exists() and not _holds_a_lock(where):
        # a cloned project's `toolhost.lock -> ~/.bashrc`: `toolhost lock` would overwrite it
        from toolhost.visible import visible

        raise _bad(path, f"cannot write the lock: it is a symbolic link to "
                   f"{visible(str(where))}, which is not a toolhost lock, and toolhost does "
                   "not overwrite that file",
                   hint="remove the link, then run `toolhost lock CONFIG`: it writes the "
                   "lock as a file of the project")
    if where.is_dir():
        raise _bad(path, "cannot write the lock: a directory has its name",
                   hint="remove or rename the directory, then run `toolhost lock CONFIG`")
    try:
        mode = where.stat().st_mode & 0o7777
    except OSError:
        mask = os.umask(0o022)  # (read back, then put back as it was)
        os.umask(mask)
        mode = 0o666 & ~mask
    try:
        fd, tmp = tempfile.mkstemp(dir=where.parent, prefix=".toolhost-lock.")  # a short name
    except OSError as exc:
        raise _bad(path, f"cannot write the lock in {where.parent}: {exc.strerror or exc}",
                   hint="a directory that exists and is writable, then `toolhost lock CONFIG`"
                   ) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(lock.to_json())
        os.chmod(tmp, mode)
        os.replace(tmp, where)
    except OSError as exc:
        os.unlink(tmp)
        raise _bad(path, f"cannot write the lock: {exc.strerror or exc}",
                   hint="free space or permissions, then run `toolhost lock CONFIG`") from None
    except BaseException:
        os.unlink(tmp)
        raise


def _holds_a_lock(path: Path) -> bool:
    """Whether ``path`` is a regular file that is empty or whose start names the lock's format
    (a lock with conflict markers or a hand edit still does; a shell profile, a key file or
    another tool's JSON does not)."""
    from toolhost.fileopen import open_regular

    try:
        with os.fdopen(open_regular(str(path)), "rb") as handle:
            start = handle.read(65_536)
            return not start.strip() or b'"toolhost_lock"' in start  # (or an empty file)
    except OSError:  # a FIFO, a device, unreadable: nothing toolhost wrote
        return False


def _other_format(text: str | None) -> str:
    """What a lock written as YAML or TOML (by hand, or converted) is told first: a lock is
    the JSON ``toolhost lock`` writes, whatever the config's own language."""
    import re

    found = re.search(r"^\s*toolhost_lock\s*([:=])", text or "", re.M)
    if found is None:
        return ""
    return (f"this lock is written as {'YAML' if found[1] == ':' else 'TOML'}, but a lock is "
            "the JSON `toolhost lock` writes, whatever the config's language; ")


def _bad(path: Path, message: str, line: int = 0, column: int = 0, *, key: str = "",
         hint: str = "") -> ConfigError:
    return ConfigError([Problem(message, str(path), line, column, key,
                                hint or _FIX)])


_FIX = "`toolhost lock CONFIG` writes it anew from what the config pulls in"
