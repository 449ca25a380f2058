"""``toolhost.load`` follows its imported servers' upstreams, as ``run`` and ``serve`` do.

An upstream marked ``required: false`` that could not start when the config was loaded is
*pending* (``toolhost.gateway.pending``); one that did start may announce a new tool list
later. ``SdkUpstreams`` runs the gateway's ``UpstreamFollower`` for the host's imported
servers in a background task of the program's asyncio event loop: a pending upstream is
retried 1, 2, 4 ... 30 s apart, and each listing (the first of a late upstream, or a
re-listing after ``tools/list_changed``) is reshaped, checked against the lock (failing
closed) and swapped into the server's tools atomically; its resources and prompts too.

What the Claude CLI sees: ``claude_agent_sdk`` does not pass an SDK server's notifications
on to the CLI (its bridge drops them), so a CLI session already running is not told; the
CLI lists an SDK server's tools when its session starts, so the next ``query()`` (or a new
``ClaudeSDKClient``) sees them. A call of a pending server's tool meanwhile is answered with
``upstream server 'NAME' is not available yet: ...; retrying``, and goes nowhere.

The task starts with the first use of the host inside an event loop (``load`` called in a
coroutine, ``async with``, ``options()``, ``can_use_tool``, or the CLI's first request to
one of its servers) and ends with ``aclose``: the host's upstream connections, a retry's
process included, are closed after it. Under another event loop than asyncio (trio) the
upstreams are not followed (a pending one stays unavailable), and a warning says so once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from toolhost.failures import log_failure

if TYPE_CHECKING:
    from toolhost.compile.content import ServerContent
    from toolhost.compile.tool import CompiledTool

__all__ = ["SdkUpstreams"]

log = logging.getLogger("toolhost.sdk")


class SdkUpstreams:
    """The background follower of one ``SdkHost``'s imported servers (see the module)."""

    def __init__(self, host: Any) -> None:
        self.host = host  # toolhost.host.Host
        self._task: asyncio.Task[None] | None = None
        self._closed = False
        self._warned = False

    @property
    def following(self) -> bool:
        """Whether the background task runs (it is only started for a config with an
        imported server)."""
        task = self._task
        return task is not None and not task.done() and not task.get_loop().is_closed()

    def start(self) -> None:
        """Start following, once, if there is anything to follow and an asyncio loop runs
        in this thread (otherwise the next use inside one starts it)."""
        if self._closed or self.following:
            return  # (a task that ended with its loop, asyncio.run's, is started again)
        from toolhost.gateway.refresh import upstreams_of

        upstreams = upstreams_of(self.host.compiled)
        if not upstreams:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if not self._warned and _in_other_loop():
                self._warned = True
                log.warning("toolhost.sdk: imported servers are followed under asyncio only; "
                            "under this event loop a pending upstream stays unavailable and "
                            "new tool lists are not taken in")
            return
        from toolhost.gateway.refresh import UpstreamFollower

        follower = UpstreamFollower(self._tools, upstreams, self._content)
        self._task = loop.create_task(self._run(follower), name="toolhost-sdk-upstreams")

    async def _run(self, follower: Any) -> None:
        try:
            await follower.run()
        except Exception as exc:  # a bug there must not surface in the program's loop
            log_failure(log, "following the imported servers' upstreams", exc)

    async def _tools(self, name: str, tools: tuple[CompiledTool, ...]) -> None:
        core = self.host.servers.get(name)
        if core is not None and core.set_tools(tools):
            log.info("%s: %d tools now; a Claude CLI session started from now on lists them",
                     name, len(tools))

    async def _content(self, name: str, content: ServerContent) -> None:
        from toolhost.compile.content import kept_promise

        core = self.host.servers.get(name)
        if core is not None:
            core.set_content(kept_promise(core.content, content))

    async def aclose(self) -> None:
        """Stop following (before the host's connections are closed). Safe to call twice."""
        self._closed = True
        task, self._task = self._task, None
        if task is None or task.done():
            return
        task.cancel()
        with contextlib.suppress(RuntimeError):  # no loop running here any more
            if task.get_loop() is asyncio.get_running_loop():
                await asyncio.wait({task})  # its end, not its cancellation, is awaited


def _in_other_loop() -> bool:
    """Whether some async library other than asyncio runs this code (trio)."""
    try:
        import sniffio

        return sniffio.current_async_library() != "asyncio"
    except Exception:
        return False
