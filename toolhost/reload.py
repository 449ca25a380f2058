"""Hot reload: watch a config's files, rebuild on change, swap only what built cleanly.

Used by ``toolhost serve --watch`` and ``toolhost run --watch``::

    reloader = Reloader(path, load=build, on_swap=swap, initial=current)
    async with anyio.create_task_group() as tg:
        tg.start_soon(reloader.run)
        ...

``load(path)`` builds the new thing (a config, a compiled host, ...); it may be a plain or
an async function. If it raises, the error is reported on stderr and the last good build
keeps serving; nothing is swapped. ``on_swap(new)`` installs a good build: swap the tool set
atomically (``McpServer.set_tools``) and announce ``notifications/tools/list_changed``.

Watching is polling of modification times with ``anyio.sleep`` (no extra dependency, works
on every filesystem, costs one ``stat`` per file per interval). The files watched are the
ones the last good build read (``HostConfig.files``: the main file, its ``extends``, its
layers), so an edit to an included fragment reloads too.

An edit saved while a build is being made is never lost: the stamps compared next are the
ones taken *before* the build read the files (a file the build newly brought in counts as
changed when it was modified after the build began), and ``since`` does the same for the
build already running when the Reloader is made (``initial``: made before the session was
up, so its files may have changed meanwhile).
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

import anyio

__all__ = ["Reloader", "built_apart", "files_of"]

log = logging.getLogger("toolhost.reload")

T = TypeVar("T")
# A file's stamp: its modification time and size, and what no edit can put back (the inode
# change time, which ``touch -r``, ``cp -p`` and ``rsync -t`` do not keep, and which file
# it is: a rename or a symbolic link put over it). Times and size alone missed an edit of the
# same size whose time was put back, and a file replaced by one of the same size and time.
Stamp = tuple[int, int, int, int, int]
Snapshot = Mapping[str, Stamp | None]
# A file's modification time may lag the clock by a tick of the kernel's coarse clock: a
# file stamped this close before a build began is taken as changed during it (at worst, one
# reload more).
TICK_NS = 20_000_000


def files_of(built: Any) -> tuple[str, ...]:
    """The files a build read: ``built.files``, or ``built.config.files`` (HostConfig)."""
    for candidate in (built, getattr(built, "config", None)):
        files = getattr(candidate, "files", None)
        if files:
            return tuple(str(f) for f in files)
    return ()


def _snapshot(files: Iterable[str]) -> dict[str, Stamp | None]:
    out: dict[str, Stamp | None] = {}
    for name in files:
        try:
            st = os.stat(name)
        except OSError:
            out[name] = None  # deleted or being replaced: a change too
        else:
            out[name] = (st.st_mtime_ns, st.st_size, st.st_ctime_ns, st.st_ino, st.st_dev)
    return out


def _stamps(files: Iterable[str], since: int | None,
            before: Snapshot | None = None) -> dict[str, Stamp | None]:
    """The stamps to compare the next look with: ``before``'s for a file it has (taken before
    the build read it), else the file's own, or None (a change) when it was modified after
    ``since`` (``time.time_ns()`` when the build began)."""
    now = _snapshot(files)
    out: dict[str, Stamp | None] = {}
    for name, stamp in now.items():
        if before is not None and name in before:
            out[name] = before[name]
        elif stamp is not None and since is not None and stamp[0] >= since - TICK_NS:
            out[name] = None
        else:
            out[name] = stamp
    return out


BUILD_POLL = 0.05  # seconds between looks at a build running in its thread


async def built_apart(build: Callable[[], T], close: Callable[[T], Awaitable[None]]) -> T:
    """``build()`` in a thread of its own while the event loop goes on answering calls.

    A reload imports python tools and plugins, clones the repositories of new ``extends``
    pins and fetches OpenAPI documents: any of them may take any time, and on the loop's
    thread no call, ping or cancellation was answered until it was done. Cancelled (the
    server stops), the build is abandoned: a daemon thread, never joined at exit; what it
    builds after that is closed in that thread with ``close``."""
    built: list[T] = []
    failed: list[BaseException] = []
    finished = threading.Event()
    lock = threading.Lock()
    abandoned = False

    def work() -> None:
        try:
            result = build()
        except BaseException as exc:  # handed to the loop (a reload error)
            failed.append(exc)
        else:
            with lock:
                built.append(result)
                late = abandoned
            if late:  # nobody will take it: close it here (its own short event loop)
                with contextlib.suppress(Exception):
                    anyio.run(close, result)
        finally:
            finished.set()

    threading.Thread(target=work, name="toolhost reload", daemon=True).start()
    try:
        while not finished.is_set():
            await anyio.sleep(BUILD_POLL)
    except BaseException:
        with lock:
            abandoned = True
            done = list(built)
        if done:
            with anyio.CancelScope(shield=True):
                await close(done[0])
        raise
    if failed:
        if isinstance(failed[0], Exception):
            raise failed[0]
        # a KeyboardInterrupt (or another BaseException) raised by the build's own code: a
        # signal is never delivered on that thread, so this is a failed build, not a stop
        raise RuntimeError(f"the build raised {type(failed[0]).__name__}: "
                           f"{failed[0]}") from failed[0]
    return built[0]


def _report(exc: BaseException) -> None:
    print(f"toolhost: reload failed; still serving the last good config:\n{exc}",
          file=sys.stderr, flush=True)


class Reloader(Generic[T]):
    """Rebuild ``path`` with ``load`` whenever one of its files changes; hand it to ``on_swap``.

    - ``initial``: the build already running (its files are watched from the start);
      without it only ``path`` is watched until the first successful reload.
    - ``files``: which files a build depends on (default: :func:`files_of`).
    - ``interval``: seconds between polls; a change is acted on once the files have held
      still for one more interval (editors write in several steps).
    - ``on_error``: called with the exception of a failed build (default: print to stderr).
    - ``since``: ``time.time_ns()`` taken before ``initial`` was built: a file of it modified
      after that is reloaded at the first look (an edit saved while the session started).
    """

    def __init__(self, path: str | os.PathLike[str], *,
                 load: Callable[[str], T | Awaitable[T]],
                 on_swap: Callable[[T], Awaitable[None]],
                 initial: T | None = None,
                 files: Callable[[T], Iterable[str]] = files_of,
                 interval: float = 0.5,
                 on_error: Callable[[BaseException], None] = _report,
                 since: int | None = None) -> None:
        self.path = os.path.abspath(os.fspath(path))
        self._load = load
        self._on_swap = on_swap
        self._files_of = files
        self.interval = interval
        self._on_error = on_error
        self.current: T | None = initial
        self.swaps = 0
        self.failures = 0
        self._watched = self._watch_list(initial)
        self._seen: Snapshot = _stamps(self._watched, since)

    def _watch_list(self, built: T | None) -> tuple[str, ...]:
        files = tuple(self._files_of(built)) if built is not None else ()
        return tuple(dict.fromkeys((self.path, *(os.path.abspath(f) for f in files))))

    async def run(self) -> None:
        """Poll forever (until cancelled)."""
        while True:
            await anyio.sleep(self.interval)
            await self.check()

    async def check(self) -> bool:
        """Look once; if anything changed (and has settled), rebuild. True if swapped."""
        now = _snapshot(self._watched)
        if now == self._seen:
            return False
        while True:  # wait until the files hold still for one interval
            await anyio.sleep(self.interval)
            settled = _snapshot(self._watched)
            if settled == now:
                break
            now = settled
        self._seen = now
        return await self.reload()

    async def reload(self) -> bool:
        """Rebuild now; swap on success, report and keep the old build on failure."""
        log.info("config changed; reloading %s", self.path)
        before, began = self._seen, time.time_ns()  # what the build is about to read
        try:
            built = self._load(self.path)
            if inspect.isawaitable(built):
                built = await built
        except Exception as exc:
            self.failures += 1
            self._on_error(exc)
            return False
        new: T = built
        try:
            await self._on_swap(new)
        except Exception as exc:
            self.failures += 1
            self._on_error(exc)
            return False
        self.current = new
        self.swaps += 1
        self._watched = self._watch_list(new)
        # an edit saved during the build differs from ``before``: the next look reloads
        self._seen = _stamps(self._watched, began, before)
        print(f"toolhost: reloaded {self.path}", file=sys.stderr, flush=True)
        return True
