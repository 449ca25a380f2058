"""Noticing that an upstream's lists changed, inside the connection's portal thread, and
handing the news on without ever blocking that thread.

Two kinds of news are followed, each on a ``Channel`` of its own: the tool list (``tools``)
and the resources, resource templates and prompts (``content``: one re-listing covers all
three); and, on ``updates`` (``toolhost.gateway.updates``), the ``resources/updated`` of the
resources toolhost's clients subscribed to. The two protocol eras announce them differently:

- a 2025-11-25 session gets ``notifications/tools/list_changed``,
  ``notifications/resources/list_changed`` and ``notifications/prompts/list_changed``
  whenever the server sends them; the ``mcp`` client hands them to its ``message_handler``
  (``on_message`` here);
- a 2026-07-28 session gets change notifications only on a ``subscriptions/listen`` stream,
  which ``listen`` keeps open (and opens again after it ends) for the connection's life.

Either way the news goes to the channel's ``callback`` (the host's side,
``toolhost.gateway.refresh`` and ``toolhost.gateway.content_refresh``), which runs in a
worker thread of the portal and may wait for the host's event loop. One hand-off per channel
runs at a time, and announcements that arrive while another is queued ride on it: a burst of
N announcements costs at most two hand-offs, never N threads.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.abc import TaskGroup

from toolhost.excerpt import cut
from toolhost.gateway.updates import ResourceUpdates

__all__ = ["ChangeWatch", "Channel", "Wake"]

log = logging.getLogger("toolhost.gateway")

SUBSCRIPTION_ID_META_KEY = "io.modelcontextprotocol/subscriptionId"
MAX_RELISTEN_DELAY = 30.0
SETTLE_SECONDS = 0.1
MAX_SETTLE_SECONDS = 1.0


class Wake:
    """A follower's alarm, on the host's loop: ``poke`` it, ``wait`` for it, let a burst of
    pokes end (``settle``), then ``rearm`` it before acting on the news."""

    def __init__(self) -> None:
        self._event = anyio.Event()

    def poke(self) -> None:  # the event of the round to come, never an old one
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    async def wait(self) -> None:
        await self._event.wait()

    def rearm(self) -> None:
        self._event = anyio.Event()

    async def settle(self) -> None:
        """Wait for a quiet SETTLE_SECONDS (at most MAX_SETTLE_SECONDS). An upstream
        announces each of a row of changes, and its answers to a listing interleave with
        them; without this each gap would cost a listing."""
        with anyio.move_on_after(MAX_SETTLE_SECONDS):
            while True:
                self.rearm()
                with anyio.move_on_after(SETTLE_SECONDS):
                    await self._event.wait()
                if not self._event.is_set():
                    return


class Channel:
    """One kind of news from one upstream (across its reconnections), to ``callback``."""

    def __init__(self, server: str, what: str) -> None:
        self.server = server
        self.what = what  # for the log: "tool list", "resources and prompts"
        # Set and cleared from the host's side; read in the portal. Plain attribute stores
        # are atomic, and a change that finds no callback is remembered in ``missed``.
        self.callback: Callable[[], None] | None = None
        self.missed = False
        # how many changes were announced (or a reconnection made likely) so far: a tool
        # built from a listing taken before the last one may be stale (gateway.current)
        self.count = 0
        self._tasks: TaskGroup | None = None
        self._lock: anyio.Lock | None = None
        self._queued = False

    def attach(self, tasks: TaskGroup) -> None:
        """A connection opened (in the portal): hand-offs run in its holder's ``tasks``."""
        self._tasks, self._lock, self._queued = tasks, anyio.Lock(), False

    def detach(self) -> None:
        """The connection is closing: nothing more is handed on from it."""
        self._tasks = None

    def take_missed(self) -> bool:
        """Whether a change came while nobody listened (and forget it)."""
        missed, self.missed = self.missed, False
        return missed

    @contextlib.contextmanager
    def delivered_to(self, poke: Callable[[], None]) -> Iterator[bool]:
        """While the block runs, each change calls ``poke`` on the calling event loop (a
        quick hop from the portal's worker thread). Yields whether a change came while
        nobody listened."""
        token = anyio.lowlevel.current_token()

        def signal() -> None:
            anyio.from_thread.run_sync(poke, token=token)

        self.callback = signal
        try:
            yield self.take_missed()
        finally:
            if self.callback is signal:
                self.callback = None

    def changed(self) -> None:
        """It changed (called in the portal): hand that on, soon."""
        self.count += 1
        if self.callback is None:
            self.missed = True
            return
        if self._tasks is None or self._queued:
            return  # closing, or a hand-off still to start carries this change too
        self._queued = True
        self._tasks.start_soon(self._hand_off)

    async def _hand_off(self) -> None:
        assert self._lock is not None
        async with self._lock:
            self._queued = False  # a change from here on needs a hand-off of its own
            callback = self.callback
            if callback is None:
                self.missed = True
                return
            try:  # in a worker thread: the callback may wait for the host's loop
                await anyio.to_thread.run_sync(callback, abandon_on_cancel=True)
            except Exception as exc:  # the host's loop is gone: nobody to tell
                log.debug("%s: could not hand on a change of its %s: %s", self.server,
                          self.what, exc)


class ChangeWatch:
    """The announcements of one upstream: ``tools`` and ``content`` (resources, templates
    and prompts), and the ``updates`` of subscribed resources."""

    def __init__(self, server: str) -> None:
        self.server = server
        self.tools = Channel(server, "tool list")
        self.content = Channel(server, "resources and prompts")
        self.updates = ResourceUpdates(server)

    def attach(self, tasks: TaskGroup) -> None:
        """A connection opened (in the portal)."""
        self.tools.attach(tasks)
        self.content.attach(tasks)
        self.updates.attach(tasks)

    def detach(self) -> None:
        """The connection is closing."""
        self.tools.detach()
        self.content.detach()
        self.updates.detach()

    def changed(self) -> None:
        """Anything may have changed (a reconnection): both lists are fetched again."""
        self.tools.changed()
        self.content.changed()

    async def on_message(self, message: Any) -> None:
        """The client's ``message_handler``: a 2025-11-25 list_changed or resources/updated.
        The same notification stamped with a listen stream's id is that stream's, seen by
        ``listen`` (or ``updates``)."""
        import mcp_types

        if not _on_stream(message):
            if isinstance(message, mcp_types.ToolListChangedNotification):
                self.tools.changed()
            elif isinstance(message, (mcp_types.ResourceListChangedNotification,
                                      mcp_types.PromptListChangedNotification)):
                self.content.changed()
            elif isinstance(message, mcp_types.ResourceUpdatedNotification):
                self.updates.updated(message.params.uri)
        await anyio.lowlevel.checkpoint()

    async def listen(self, client: Any) -> None:
        """Hold a ``subscriptions/listen`` stream for list changes while the connection
        lives (2026-07-28; returns at once on a 2025-11-25 session). A stream that ends or
        drops is opened again after 1, 2, 4 ... 30 s, and the lists are then refetched:
        events are not replayed."""
        from mcp.client.subscriptions import ListenNotSupportedError, ToolsListChanged

        caps = client.server_capabilities
        wanted = {"tools_list_changed": True,  # only what the upstream offers at all
                  "resources_list_changed": getattr(caps, "resources", None) is not None,
                  "prompts_list_changed": getattr(caps, "prompts", None) is not None}
        delay, again = 1.0, False
        while True:
            opened = time.monotonic()
            try:
                async with client.listen(**wanted) as stream:
                    honored = stream.honored
                    if not (honored.tools_list_changed or honored.resources_list_changed
                            or honored.prompts_list_changed):
                        log.info("%s: the upstream does not announce list changes",
                                 self.server)
                        return
                    if again:
                        self.changed()  # what changed while the stream was down
                    async for event in stream:
                        channel = self.tools if isinstance(event, ToolsListChanged) \
                            else self.content  # ResourceUpdated is not asked for
                        channel.changed()
                why = "ended"
            except ListenNotSupportedError:
                return  # 2025-11-25: announcements come through on_message
            except Exception as exc:
                why = f"dropped ({cut(str(exc) or type(exc).__name__, 200)})"
            if time.monotonic() - opened > MAX_RELISTEN_DELAY:
                delay = 1.0  # it held for a while: this is no crash loop
            log.info("%s: the upstream's listen stream %s; listening again in %gs",
                     self.server, why, delay)
            await anyio.sleep(delay)
            delay, again = min(delay * 2, MAX_RELISTEN_DELAY), True


def _on_stream(message: Any) -> bool:
    meta = getattr(getattr(message, "params", None), "meta", None)
    return isinstance(meta, Mapping) and SUBSCRIPTION_ID_META_KEY in meta
