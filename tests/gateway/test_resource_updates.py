"""A client of ``toolhost serve`` subscribed to an imported server's resource hears the
upstream's ``notifications/resources/updated`` for it: toolhost subscribes upstream while a
client wants it (both client eras, both upstream eras), again after the upstream restarts
(announcing then what may have changed meanwhile), and drops what a hostile upstream sends
for URIs nobody subscribed to."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.subscriptions import ResourceUpdated

from .conftest import UPSTREAM, upstreams_gone

pytestmark = [pytest.mark.anyio,
              pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")]

WAIT = 20  # seconds: every wait below gives up after this
README, ITEM = "notes://readme", "notes://item/7"


def config(tmp_path: Path, log: Path, *, legacy: bool = False, crash_after: int = 0) -> Path:
    path = tmp_path / "gateway.yaml"
    path.write_text(f"""\
toolhost: 1
servers:
  notes:
    mcp:
      command: [{sys.executable}, {UPSTREAM}, stdio]
      env: {{UPSTREAM_CONTENT: "1", UPSTREAM_UPDATES: "1", UPSTREAM_LOG: "{log}",
             UPSTREAM_LEGACY: "{'1' if legacy else ''}",
             UPSTREAM_CRASH_AFTER: "{crash_after or ''}"}}
permissions:
  default: allow
""")
    return path


class Heard:
    """The URIs of the downstream resources/updated a client hears, in either era."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self._event = anyio.Event()

    async def on_message(self, message: Any) -> None:
        # 2025-11-25; a 2026-07-28 listen stream's events come here too, stamped: not twice
        if isinstance(message, types.ResourceUpdatedNotification) and not message.params.meta:
            self.note(message.params.uri)

    def note(self, uri: str) -> None:
        self.uris.append(uri)
        self._event.set()

    async def next(self, uri: str) -> None:
        with anyio.fail_after(WAIT):
            while uri not in self.uris:
                self._event = anyio.Event()
                await self._event.wait()
        self.uris.remove(uri)


class Subscriber:
    """A client of ``toolhost serve`` subscribing the way its era does."""

    def __init__(self, client: Client, heard: Heard, tg: Any) -> None:
        self.client, self.heard, self.tg = client, heard, tg
        self.modern = client.protocol_version.startswith("2026")
        self._stream: anyio.CancelScope | None = None

    async def subscribe(self, *uris: str) -> None:
        """These URIs, and only these, from now on."""
        if not self.modern:
            for uri in uris:
                await self.client.subscribe_resource(uri)
            return
        if self._stream is not None:
            self._stream.cancel()
        if uris:
            self._stream = await self.tg.start(self._listen, uris)

    async def unsubscribe(self, uri: str) -> None:
        if self.modern:
            await self.subscribe()
        else:
            await self.client.unsubscribe_resource(uri)

    async def _listen(self, uris: tuple[str, ...], task_status: Any) -> None:
        with anyio.CancelScope() as scope:
            async with self.client.listen(resource_subscriptions=list(uris)) as stream:
                assert sorted(stream.honored.resource_subscriptions or ()) == sorted(uris)
                task_status.started(scope)
                async for event in stream:
                    if isinstance(event, ResourceUpdated):
                        self.heard.note(event.uri)


@asynccontextmanager
async def served(path: Path, mode: str, errlog_path: Path) -> AsyncIterator[Subscriber]:
    heard = Heard()
    params = StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                   args=["-m", "toolhost", "serve", str(path)])
    with open(errlog_path, "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode,
                          message_handler=heard.on_message) as client, \
                anyio.create_task_group() as tg:
            yield Subscriber(client, heard, tg)
            tg.cancel_scope.cancel()


def logged(log: Path, key: str) -> list[Any]:
    """What the upstream(s) logged under ``key``, in order."""
    if not log.exists():
        return []
    entries = [json.loads(line) for line in log.read_text().splitlines()]
    return [e[key] for e in entries if key in e]


async def upstream_has(log: Path, key: str, value: Any, times: int = 1) -> None:
    """Until the upstream logged ``key: value`` ``times`` times."""
    with anyio.fail_after(WAIT):
        while logged(log, key).count(value) < times:
            await anyio.sleep(0.05)


async def touch(client: Client, **arguments: Any) -> None:
    result = await client.call_tool("touch", arguments)
    assert not result.is_error, result


@pytest.mark.parametrize("upstream_era", ["modern", "legacy"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_subscribed_upstream_resource_is_announced(mode: str, upstream_era: str,
                                                           tmp_path: Path) -> None:
    log, legacy = tmp_path / "upstream.log", upstream_era == "legacy"
    async with served(config(tmp_path, log, legacy=legacy), mode,
                      tmp_path / "serve.log") as sub:
        assert sub.modern == (mode == "auto")
        await sub.subscribe(README, ITEM)  # a listed resource and one of a template
        if legacy:
            await upstream_has(log, "subscribed", README)
            await upstream_has(log, "subscribed", ITEM)
        else:
            await upstream_has(log, "listen", [ITEM, README])
        await touch(sub.client, uri=README)
        await sub.heard.next(README)
        await touch(sub.client, uri=ITEM)
        await sub.heard.next(ITEM)

        # a burst for one URI is passed on coalesced, never lost
        await touch(sub.client, uri=README, times=50)
        await sub.heard.next(README)
        await anyio.sleep(0.5)  # anything still to come has come
        assert sub.heard.uris.count(README) <= 3, sub.heard.uris

        # nobody wants it any more: unsubscribed upstream too
        await sub.unsubscribe(README)
        if legacy:
            await upstream_has(log, "unsubscribed", README)
        else:
            await upstream_has(log, "unlisten", [ITEM, README])
        if not sub.modern:  # (a modern client's stream held both: ITEM is gone too)
            await touch(sub.client, uri=ITEM)
            await sub.heard.next(ITEM)
        sub.heard.uris.clear()
        await touch(sub.client, uri=README, times=3)
        await anyio.sleep(0.5)
        assert README not in sub.heard.uris
        if not legacy:  # one stream per wanted set, the newest open
            assert logged(log, "listen")[-1] == ([ITEM] if not sub.modern else [ITEM, README])
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
    await upstreams_gone(WAIT)


@pytest.mark.parametrize("upstream_era", ["modern", "legacy"])
async def test_a_restarted_upstream_is_subscribed_again(upstream_era: str,
                                                        tmp_path: Path) -> None:
    log, legacy = tmp_path / "upstream.log", upstream_era == "legacy"
    key, value = ("subscribed", README) if legacy else ("listen", [README])
    async with served(config(tmp_path, log, legacy=legacy, crash_after=3), "legacy",
                      tmp_path / "serve.log") as sub:
        await sub.subscribe(README)
        await upstream_has(log, key, value)
        for _ in range(3):  # the third call ends the upstream process
            await sub.client.call_tool("echo", {"text": "hi"})
        assert README not in sub.heard.uris
        restarted = await sub.client.call_tool("echo", {"text": "again"})  # reconnects
        assert not restarted.is_error, restarted
        await upstream_has(log, key, value, times=2)
        # it may have changed while nobody was subscribed: the client hears so, unasked
        await sub.heard.next(README)
        await touch(sub.client, uri=README)
        await sub.heard.next(README)
    await upstreams_gone(WAIT)


@pytest.mark.parametrize("upstream_era", ["modern", "legacy"])
async def test_updates_nobody_subscribed_to_are_dropped(upstream_era: str,
                                                        tmp_path: Path) -> None:
    log, legacy = tmp_path / "upstream.log", upstream_era == "legacy"
    async with served(config(tmp_path, log, legacy=legacy), "legacy",
                      tmp_path / "serve.log") as sub:
        await sub.subscribe(README)
        await upstream_has(log, "subscribed" if legacy else "listen",
                           README if legacy else [README])
        await touch(sub.client, stray=3000)
        # the subscribed one still comes through (a modern upstream's flood ended its
        # listen stream on the client's side: it is opened again within a second or two)
        with anyio.fail_after(WAIT):
            while README not in sub.heard.uris:
                await touch(sub.client, uri=README)
                await anyio.sleep(0.2)
        assert set(sub.heard.uris) == {README}, sorted(set(sub.heard.uris))[:5]
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
    await upstreams_gone(WAIT)


@pytest.mark.parametrize("upstream_era", ["modern", "legacy"])
def test_a_flood_of_unwanted_updates_keeps_nothing(upstream_era: str,
                                                   tmp_path: Path) -> None:
    """The connection itself: what is not wanted is counted and dropped, nothing kept."""
    from toolhost.host import load_host

    log, legacy = tmp_path / "upstream.log", upstream_era == "legacy"
    host = load_host(config(tmp_path, log, legacy=legacy))
    try:
        connection = host.compiled.upstreams["notes"].connection
        updates = connection.watch.updates
        delivered: list[frozenset[str]] = []
        updates.want([README], delivered.append)
        anyio.run(upstream_has, log, "subscribed" if legacy else "listen",
                  README if legacy else [README])
        flood = 3_000  # over the client's listen backlog (1024 events)
        connection.call_tool("touch", {"stray": flood}, None)
        # every one reaches toolhost, which drops it; unless (modern) the flood outran the
        # client's listen backlog (1024 events), which ends the stream: it is opened again
        anyio.run(_until, lambda: updates.dropped >= flood or
                  logged(log, "listen").count([README]) > 1)
        assert updates.dropped > 0
        while not delivered:  # (a modern stream is opened again after a second)
            connection.call_tool("touch", {"uri": README}, None)
            anyio.run(_until, lambda: delivered, 0.2)
        assert all(uris == {README} for uris in delivered), delivered
        assert updates._pending <= {README}
        assert updates.wanted == {README}
        updates.want([], None)
        if legacy:
            anyio.run(upstream_has, log, "unsubscribed", README)
        else:  # every stream it opened for the resource is closed
            anyio.run(_until, lambda: logged(log, "unlisten").count([README]) ==
                      logged(log, "listen").count([README]))
    finally:
        anyio.run(host.aclose)
    anyio.run(upstreams_gone, WAIT)


async def _until(condition: Any, within: float = WAIT) -> None:
    with anyio.move_on_after(within) as waited:
        while not condition():
            await anyio.sleep(0.05)
    assert within < WAIT or not waited.cancel_called, "gave up waiting"
