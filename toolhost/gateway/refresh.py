"""Following an upstream's tool list while serving it (``serve`` and ``run``).

When an upstream announces that its tools changed (``toolhost.gateway.changes`` notices it
in the connection's thread), its refresher lists them again, reshapes them under the same
``include``/``exclude``/``tools`` rules, checks them against the lock, and hands the new set
to the host (``apply``), which swaps it in atomically and announces
``notifications/tools/list_changed`` to its own clients. A burst of announcements is let
end first (a quiet 0.1 s, at most 1 s), and announcements that come during a refresh cause
one more refresh, not one each. Permission rules need nothing: the gate looks tool names up
at call time.

It fails closed. A listing with a definition that differs from the lock (or a reshaping
that no longer fits) withdraws every tool of that upstream, logged once as an error, until a
listing fits again: the lock is re-read on every refresh and watched while withdrawn, so
accepting the change with ``toolhost lock`` brings the tools back. A listing that fails
(the upstream is down) keeps the current tools, with a warning, and the next attempt waits
1, 2, 4 ... 30 seconds while they keep failing. An upstream that could not start at all
(``required: false``, ``toolhost.gateway.pending``) is retried on that schedule until it
lists its tools, which then take this same path.

``UpstreamFollower`` runs one refresher per imported server of whichever build is current
(and, given ``apply_content``, one ``toolhost.gateway.content_refresh.ContentRefresher`` for
its resources and prompts), and starts over with the new build's upstreams when a reload
swaps it in.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING

import anyio

from toolhost.compile.content import ServerContent
from toolhost.compile.tool import CompiledTool
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.gateway.changes import Wake

if TYPE_CHECKING:
    from toolhost.gateway.compile import Listing, UpstreamTools
    from toolhost.gateway.content_refresh import ApplyContent

__all__ = ["Apply", "UpstreamFollower", "UpstreamRefresher", "upstreams_of"]

log = logging.getLogger("toolhost.gateway")

Apply = Callable[[str, tuple[CompiledTool, ...]], Awaitable[None]]
"""Installs a server's new tool set (server name, tools) and announces it if it changed."""

LOCK_POLL_SECONDS = 2.0


class UpstreamRefresher:
    """Keeps one imported server's tools in step with its upstream (``run`` until cancelled)."""

    def __init__(self, name: str, upstream: UpstreamTools, apply: Apply, *,
                 lock_poll: float = LOCK_POLL_SECONDS) -> None:
        self.name = name
        self.upstream = upstream
        self.apply = apply
        self.lock_poll = lock_poll
        self.withdrawn = False
        self._failures = 0
        self._lock_seen: tuple[int, int] | None = None  # the lock file as the last refresh read it
        self._wake = Wake()
        self._said = ""  # the withdrawal last logged (said once, not at every retry)

    async def run(self) -> None:
        """Refresh whenever the upstream announces a change, until cancelled (a pending
        upstream is started first: ``until_up``)."""
        if self.upstream.pending:
            await self.until_up()
        with self.upstream.connection.watch.tools.delivered_to(self._wake.poke) as missed:
            if missed:
                self._wake.poke()
            while True:
                await self._next_round()
                await self._wake.settle()  # a burst ends first: one listing, not one per gap
                self._wake.rearm()  # a change from now on: one more round
                await self.refresh()

    async def _next_round(self) -> None:
        """Until there is news: an announcement or, while withdrawn, a lock file edit."""
        if not self.withdrawn:
            await self._wake.wait()
            return
        while not self._wake.is_set():
            with anyio.move_on_after(self.lock_poll):
                await self._wake.wait()
            if _stamp(self._lock_file()) != self._lock_seen:
                return

    def _lock_file(self) -> str | None:
        pins = self.upstream.pins
        return str(pins.lock_file) if pins is not None and pins.lock_file else None

    async def refresh(self) -> None:
        """List, reshape, check and hand over once (see the module docstring)."""
        from toolhost.gateway.client import MAX_BACKOFF, UpstreamError

        self._lock_seen = _stamp(self._lock_file())  # before relist reads it
        try:
            listing: Listing = await anyio.to_thread.run_sync(self.upstream.relist,
                                                              abandon_on_cancel=True)
        except Exception as exc:  # whatever it is, it must not take the host down
            self._failures += 1
            if not isinstance(exc, UpstreamError):
                log_failure(log, f"{self.name}: listing its upstream's tools", exc)
            log.warning("%s: its upstream's tools changed, but listing them failed; still "
                        "serving the %d tools it had: %s", self.name, len(self.upstream.tools),
                        cut(str(exc), 500))
            # an upstream that restarts and fails again at once is not hammered: 1, 2 ... 30s
            await anyio.sleep(min(MAX_BACKOFF, 2.0 ** (self._failures - 1)))
            return
        self._failures = 0
        await self._take(listing)

    async def until_up(self) -> None:
        """Retry a pending upstream (``toolhost.gateway.pending``) 1, 2, 4 ... 30 s apart,
        each attempt bounded by its ``connect_timeout``, until it lists its tools; they are
        then taken like any re-listing's (reshaped, checked against the lock, swapped in)."""
        from toolhost.gateway.client import MAX_BACKOFF
        from toolhost.gateway.pending import reason

        delay = 1.0
        while True:
            await anyio.sleep(delay)
            self._lock_seen = _stamp(self._lock_file())
            try:
                listing: Listing = await anyio.to_thread.run_sync(self.upstream.relist,
                                                                  abandon_on_cancel=True)
            except Exception as exc:
                why = reason(exc)
                self.upstream.pending = (self.upstream.redact(why) if self.upstream.redact
                                         else why)
                log.debug("%s: its upstream is still not available (retrying in %gs): %s",
                          self.name, min(MAX_BACKOFF, delay * 2), self.upstream.pending)
                delay = min(MAX_BACKOFF, delay * 2)
                continue
            self.upstream.pending = ""
            if not listing.problems:  # otherwise the withdrawal is the news (an error)
                log.warning("%s: its upstream is available now (%d tools listed)", self.name,
                            len(listing.tools))
            await self._take(listing)
            return

    async def _take(self, listing: Listing) -> None:
        """Serve what one listing gave: its tools, or none while it does not fit."""
        if listing.problems:
            self._withdraw(listing)
            await self._hand_over(None, listing.at)
            return
        if self.withdrawn:
            log.warning("%s: its upstream's tools fit again; serving them (%d)", self.name,
                        len(listing.tools))
        self.withdrawn, self._said = False, ""
        await self._hand_over(listing, listing.at)

    async def _hand_over(self, listing: Listing | None, at: int) -> None:
        self.upstream.serve(listing, at)  # (a call of a tool it replaced is not sent)
        tools = self.upstream.tools
        try:
            await self.apply(self.name, tools)
        except Exception as exc:  # a bug there must not stop the host serving
            log_failure(log, f"{self.name}: installing its upstream's new tools", exc)

    def _withdraw(self, listing: Listing) -> None:
        first = listing.problems[0]
        more = f" (and {len(listing.problems) - 1} more)" if len(listing.problems) > 1 else ""
        lock = self._lock_file() or "the lock"
        until = (f"until {lock} is updated (review, then `toolhost lock CONFIG`)"
                 if listing.drifted else "until the upstream or the config is fixed")
        line = (f"{self.name}: its upstream's tools changed and are withdrawn (none served) "
                f"{until}: {cut(first.message, 300)}{more}")
        if line != self._said:
            log.error("%s", line)
            self._said = line
        self.withdrawn = True


def _stamp(path: str | None) -> tuple[int, int] | None:
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


class UpstreamFollower:
    """Refreshers for each imported server of the current build (``switch`` on reload).

    ``apply`` (and ``apply_content``) are only ever called by the refreshers of the build
    that is current: one of a build a reload replaced never swaps its old tools or content
    back in.
    """

    def __init__(self, apply: Apply, upstreams: Mapping[str, UpstreamTools],
                 apply_content: ApplyContent | None = None) -> None:
        self._apply = apply
        self._apply_content = apply_content
        self._upstreams: dict[str, UpstreamTools] = dict(upstreams)
        self._switched = anyio.Event()

    def switch(self, upstreams: Mapping[str, UpstreamTools]) -> None:
        """Follow these upstreams from now on (a reload's build)."""
        self._upstreams = dict(upstreams)
        self._switched.set()

    async def run(self) -> None:
        """Run the current build's refreshers until cancelled."""
        from toolhost.gateway.content_refresh import ContentRefresher

        while True:
            switched = self._switched = anyio.Event()
            async with anyio.create_task_group() as tg:
                for name, upstream in self._upstreams.items():
                    tg.start_soon(UpstreamRefresher(name, upstream, self._guarded(upstream)).run)
                    if self._apply_content is not None:
                        tg.start_soon(ContentRefresher(name, upstream.connection,
                                                       self._guarded_content(upstream)).run)
                await switched.wait()
                tg.cancel_scope.cancel()

    def _guarded(self, upstream: UpstreamTools) -> Apply:
        async def apply(name: str, tools: tuple[CompiledTool, ...]) -> None:
            if self._upstreams.get(name) is upstream:
                await self._apply(name, tools)

        return apply

    def _guarded_content(self, upstream: UpstreamTools) -> ApplyContent:
        async def apply(name: str, content: ServerContent) -> None:
            if self._upstreams.get(name) is upstream and self._apply_content is not None:
                await self._apply_content(name, content)

        return apply


def upstreams_of(compiled: object) -> dict[str, UpstreamTools]:
    """The imported servers of a build's ``CompiledTools`` (none for a hand-built host)."""
    found = getattr(compiled, "upstreams", None)
    return dict(found) if isinstance(found, Mapping) else {}
