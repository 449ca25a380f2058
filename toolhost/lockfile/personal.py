"""One person's files (the user file, the git-ignored ``toolhost.local.*``) are pinned by
the lock beside each of them, never by the project's lock the team shares: their sources
and plugins (``LockGuard.personal``), and here the upstream MCP servers they import."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from toolhost.config.model import Origin
from toolhost.errors import Problem
from toolhost.gateway.pins import UpstreamPins
from toolhost.lockfile.model import read_lock
from toolhost.lockfile.where import lock_path

__all__ = ["LayeredPins", "personal_files", "pins_for"]


def personal_files(files: Sequence[str], environ: Mapping[str, str] | None = None
                   ) -> dict[str, Path]:
    """Of a load's ``files`` (the main file first), the user's and the local layer's file:
    real path -> the lock beside it. The main file is the project's even when it is the
    user file itself (``toolhost lock ~/.config/toolhost/config.yaml --no-layers``)."""
    from toolhost.config.loader import user_config_path

    if not files:
        return {}
    main = Path(files[0])
    candidates = [user_config_path(os.environ if environ is None else environ),
                  *(main.parent / f"toolhost.local{s}" for s in (".yaml", ".yml", ".toml"))]
    read = {os.path.realpath(f) for f in files[1:]} - {os.path.realpath(main)}
    return {os.path.realpath(c): lock_path(c) for c in candidates
            if c is not None and os.path.realpath(c) in read}


class LayeredPins(UpstreamPins):
    """The project's pins, except for a server a personal file declares: that one is checked
    against (and recorded for) the lock beside that file, when there is one."""

    def __init__(self, locked: Mapping[str, Mapping[str, Mapping[str, Any]]] | None,
                 lock_file: Path | None, personal: Mapping[str, Path], *,
                 verify: bool = True) -> None:
        super().__init__(locked, lock_file, verify=verify)
        self.personal = dict(personal)
        self.theirs: dict[Path, UpstreamPins] = {}

    def owner(self, origin: Origin) -> Path | None:
        """The lock of the personal file ``origin`` is in; None: the project's."""
        return self.personal.get(os.path.realpath(origin.file)) if origin.file else None

    def check(self, server: str, origin: Origin,
              seen: Mapping[str, Mapping[str, Any]]) -> list[Problem]:
        where = self.owner(origin)
        if where is None:
            return super().check(server, origin, seen)
        if where not in self.theirs:
            lock = read_lock(where)  # (a ConfigError, located, when unreadable)
            self.theirs[where] = UpstreamPins(lock.upstreams if lock else None, where,
                                              verify=self.verify or lock is not None)
        self.recorded.pop(server, None)  # the project's lock never records it
        return self.theirs[where].check(server, origin, seen)

    def reread(self) -> None:
        super().reread()
        for pins in self.theirs.values():
            pins.reread()


def pins_for(files: Sequence[str], *, verify: bool = True) -> LayeredPins:
    """The upstream pins of a load of ``files``: the lock beside the main file for the
    project's servers, the lock beside each personal file for that file's."""
    if not files:
        return LayeredPins(None, None, {}, verify=verify)
    where = lock_path(files[0])
    lock = read_lock(where) if verify else None
    return LayeredPins(lock.upstreams if lock is not None else None, where,
                       personal_files(files), verify=verify)
