"""``toolhost.lock``: what a config pulls in from elsewhere, pinned by content.

A config may extend files from team repositories (``{repo, rev, path}``), from installed
packages (``pkg:NAME/PATH``) and enable plugin distributions. The lock file beside the config
records, for each, what it resolved to when a person reviewed it: the commit a ``rev`` named
and a SHA-256 of every file used, the version and file hashes of packages, the version of every
enabled plugin. On every load the same things are resolved again and compared; any difference
(a tag moved upstream, a cache edited on disk, a plugin upgraded) stops the load with a diff,
until someone accepts it with ``toolhost lock``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolhost.lockfile.guard import LockGuard
from toolhost.lockfile.where import lock_path, read_lock

if TYPE_CHECKING:
    from toolhost.lockfile.drift import Pulled
    from toolhost.lockfile.model import LOCK_VERSION, Lock, LockedFile

__all__ = ["LOCK_VERSION", "Lock", "LockGuard", "LockedFile", "Pulled", "lock_path",
           "read_lock"]


def __getattr__(name: str) -> Any:
    # the lock's model loads when first named: a load without a lock file never needs it
    if name == "Pulled":
        from toolhost.lockfile.drift import Pulled

        return Pulled
    if name in ("LOCK_VERSION", "Lock", "LockedFile"):
        from toolhost.lockfile import model

        return getattr(model, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
