"""``notifications/resources/updated`` for files: the resources clients subscribed to are
watched, and a change on disk is announced to those clients.

Only resources read from a file (a ``file`` resource, or a file inside a ``directory``
resource) can be watched: a resource produced by a python function, a command or an HTTP
endpoint would have to be run to know whether it changed, so its subscribers hear nothing
(docs/serve.md says so). Watching is a ``stat`` per subscribed URI per interval (the same
polling as ``--watch``: no extra dependency, every filesystem); nothing is watched until a
client subscribes, and at most ``MAX_WATCHED`` URIs are, shared fairly: the clients' URIs
are taken in turn (the first of each client, then the second of each...), so one client with
many subscriptions never pushes out another's. A URI whose resource is not read from a file
costs nothing (its path is looked up once per config, not per tick).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import anyio
import anyio.lowlevel

if TYPE_CHECKING:
    from toolhost.serve.served import ServedServer

__all__ = ["INTERVAL_ENV", "MAX_WATCHED", "ResourceWatch", "in_turn", "watch_interval"]

log = logging.getLogger("toolhost.serve")

MAX_WATCHED = 10_000
INTERVAL_ENV = "TOOLHOST_RESOURCE_WATCH_INTERVAL"  # seconds between looks (default 1)
_INTERVAL_BOUNDS = (0.05, 60.0)
Stamp = tuple[int, int] | None  # (mtime_ns, size); None: the file is gone


def watch_interval() -> float:
    """Seconds between two looks: ``TOOLHOST_RESOURCE_WATCH_INTERVAL`` (0.05 to 60), else 1."""
    raw = os.environ.get(INTERVAL_ENV)
    if raw is None or not raw.strip():
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    low, high = _INTERVAL_BOUNDS
    if not low <= value <= high:  # NaN too
        log.warning("%s=%r is not a number of seconds from %g to %g; watching every second",
                    INTERVAL_ENV, raw[:40], low, high)
        return 1.0
    return value


def in_turn(clients: Sequence[Sequence[str]]) -> Iterator[str]:
    """The URIs of every client, each once, taken in turn: the first of each client, then
    the second of each... A reader that stops at a budget shares it fairly among clients."""
    seen: set[str] = set()
    depth = 0
    while clients:
        clients = [uris for uris in clients if depth < len(uris)]
        for uris in clients:
            if uris[depth] not in seen:
                seen.add(uris[depth])
                yield uris[depth]
        depth += 1


class ResourceWatch:
    """Polls the files behind subscribed resource URIs (``run`` until cancelled)."""

    def __init__(self, served: ServedServer, interval: float | None = None) -> None:
        self.served = served
        self.interval = watch_interval() if interval is None else interval
        self._seen: dict[str, Stamp] = {}
        self._paths: dict[str, str | None] = {}  # uri -> its file, for the content below
        self._content: object = None
        served.on_subscribed = self.note  # a stamp taken as a client subscribes

    async def run(self) -> None:
        """Look every ``interval`` seconds, forever."""
        while True:
            await anyio.sleep(self.interval)
            try:
                await self.check()
            except Exception:  # a watcher's bug must never take the server down
                log.exception("resource watch failed")

    def note(self, uris: Iterable[str]) -> None:
        """Take the stamps of ``uris`` a client is subscribing to (before it is told so): a
        change made after that is announced at the next look, however soon it came."""
        self._known_paths()
        for uri in uris:
            if uri in self._seen or len(self._seen) >= 4 * MAX_WATCHED:  # bounded till a look
                continue
            if uri not in self._paths:
                if len(self._paths) >= 4 * MAX_WATCHED:
                    self._paths.clear()
                self._paths[uri] = self._path(uri)
            if self._paths[uri] is not None:
                self._seen[uri] = self._stamp(uri)

    def _known_paths(self) -> None:
        content = self.served.core.content
        if content is not self._content:  # a reload: paths may have changed
            self._content, self._paths = content, {}

    def wanted(self) -> list[str]:
        """The URIs to watch: read from a file, each once, taken from the clients in turn
        up to ``MAX_WATCHED``."""
        self._known_paths()
        chosen: list[str] = []
        for uri in in_turn(self.served.subscriptions_by_client()):
            if uri not in self._paths:
                if len(self._paths) >= 4 * MAX_WATCHED:
                    self._paths.clear()
                self._paths[uri] = self._path(uri)
            if self._paths[uri] is not None:
                chosen.append(uri)
                if len(chosen) >= MAX_WATCHED:
                    break
        return chosen

    async def check(self) -> list[str]:
        """Look once; announce (and return) the subscribed URIs whose file changed."""
        stamps = {uri: self._stamp(uri) for uri in self.wanted()}
        changed = [uri for uri, stamp in stamps.items()
                   if uri in self._seen and self._seen[uri] != stamp]
        # a URI first seen now is only noted: it was subscribed to before this watcher
        # started (a subscription after that was stamped by ``note`` as it came)
        self._seen = {uri: stamp for uri, stamp in stamps.items()}
        for uri in changed:
            await self.served.resource_updated(uri)
            await anyio.lowlevel.checkpoint()  # let each listen stream's pump drain
        return changed

    def _stamp(self, uri: str) -> Stamp:
        path = self._paths.get(uri)
        if path is None:
            return None
        try:
            info = os.stat(path)
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_size)

    def _path(self, uri: str) -> str | None:
        found = self.served.core.content.find(uri)
        if found is None:
            return None
        resource, values = found
        file_of = getattr(resource, "file_of", None)  # an upstream's resource has none
        return file_of(uri, values) if callable(file_of) else None
