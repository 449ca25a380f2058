"""Where a config's lock is, and reading it only when it is there.

Most configs have no lock: a load then asks the file system once and never loads the lock's
model (``toolhost.lockfile.model``, its dataclasses and JSON checks), which is most of what
``serve`` and ``validate`` spent on locks at start-up."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolhost.lockfile.model import Lock

__all__ = ["lock_path", "read_lock"]


def lock_path(config: str | os.PathLike[str]) -> Path:
    """The lock of ``config``: the same name with ``.lock`` (``toolhost.yaml`` ->
    ``toolhost.lock``), beside it."""
    path = Path(config)
    if not path.name or path.name == "..":  # "" or "/": no config can be there, nor its lock
        return path / ".lock"
    return path.with_suffix(".lock")


def read_lock(path: Path) -> Lock | None:
    """The lock at ``path``; None if there is none. Nothing at all there (not even a dangling
    link) is answered here; anything else, present or odd, is ``model.read_lock``'s to read
    or to refuse, located."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return None
    except (OSError, ValueError):  # (a NUL, a name too long, a file on the way: said there)
        pass
    from toolhost.lockfile.model import read_lock as read_present

    return read_present(path)
