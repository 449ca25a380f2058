"""Following an upstream's resources, resource templates and prompts while serving it.

When an upstream announces that its resources or prompts changed
(``notifications/resources/list_changed`` or ``notifications/prompts/list_changed``, noticed
by ``toolhost.gateway.changes``), its ``ContentRefresher`` lists all three again with the
passthrough's code and bounds (``toolhost.gateway.passthrough``) and hands the new
``ServerContent`` to the host (``apply``), which installs it and announces the lists that
changed to its own clients. A burst of announcements is let end first (a quiet 0.1 s, at most
1 s), and announcements that come during a listing cause one more listing, not one each.
There is nothing to check against the lock: only tools are pinned, and ``include``/``exclude``
choose tools only.

A listing that fails (the upstream is down, or refuses) keeps the current resources and
prompts, with one warning, and the next attempt waits 1, 2, 4 ... 30 seconds while they keep
failing. A resource or prompt that disappeared is simply not in the new content: reading or
getting it is answered with an error by the server (``Resource not found``,
``unknown prompt``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import anyio

from toolhost.compile.content import ServerContent
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.gateway.changes import Wake
from toolhost.gateway.client import MAX_BACKOFF, UpstreamConnection, UpstreamError

__all__ = ["ApplyContent", "ContentRefresher"]

log = logging.getLogger("toolhost.gateway")

ApplyContent = Callable[[str, ServerContent], Awaitable[None]]
"""Installs a server's new resources and prompts (server name, content) and announces the
lists that changed."""


class ContentRefresher:
    """Keeps one imported server's resources and prompts in step with its upstream (``run``
    until cancelled)."""

    def __init__(self, name: str, connection: UpstreamConnection,
                 apply: ApplyContent) -> None:
        self.name = name
        self.connection = connection
        self.apply = apply
        self._failures = 0
        self._wake = Wake()

    async def run(self) -> None:
        """Refresh whenever the upstream announces a change, until cancelled."""
        with self.connection.watch.content.delivered_to(self._wake.poke) as missed:
            if missed:
                self._wake.poke()
            while True:
                await self._wake.wait()
                await self._wake.settle()  # a burst ends first: one listing, not one per gap
                self._wake.rearm()  # a change from now on: one more round
                await self.refresh()

    async def refresh(self) -> None:
        """List once and hand the result over (see the module docstring)."""
        from toolhost.gateway.passthrough import list_content

        try:
            content: ServerContent = await anyio.to_thread.run_sync(
                list_content, self.connection, self.name, abandon_on_cancel=True)
        except Exception as exc:  # whatever it is, it must not take the host down
            self._failures += 1
            if not isinstance(exc, UpstreamError):
                log_failure(log, f"{self.name}: listing its upstream's resources and prompts",
                            exc)
            log.warning("%s: its upstream's resources or prompts changed, but listing them "
                        "failed; still serving the ones it had: %s", self.name,
                        cut(str(exc), 500))
            # an upstream that keeps failing is not hammered: 1, 2 ... 30s
            await anyio.sleep(min(MAX_BACKOFF, 2.0 ** (self._failures - 1)))
            return
        self._failures = 0
        try:
            await self.apply(self.name, content)
        except Exception as exc:  # a bug there must not stop the host serving
            log_failure(log, f"{self.name}: installing its upstream's new resources and "
                        "prompts", exc)
