"""An upstream that changes its resources and prompts while served: toolhost lists them
again, installs them and tells its own clients (``serve``, both client eras and both upstream
eras; ``run``: installed for the CLI's next ``resources/list``)."""

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
from mcp.shared.exceptions import MCPError

from .conftest import UPSTREAM, upstreams_gone

pytestmark = pytest.mark.anyio

WAIT = 20  # seconds: every wait below gives up after this


def config(tmp_path: Path, log: Path, *, legacy: bool = False) -> Path:
    path = tmp_path / "gateway.yaml"
    path.write_text(f"""\
toolhost: 1
servers:
  notes:
    mcp:
      command: [{sys.executable}, {UPSTREAM}, stdio]
      env: {{UPSTREAM_CONTENT: "1", UPSTREAM_SHELVE: "1", UPSTREAM_LOG: "{log}",
             UPSTREAM_LEGACY: "{'1' if legacy else ''}"}}
permissions:
  default: allow
""")
    return path


class Heard:
    """The downstream resources/prompts list_changed a client hears, in either era."""

    def __init__(self) -> None:
        self.count = {"resources": 0, "prompts": 0}
        self._events = {"resources": anyio.Event(), "prompts": anyio.Event()}

    async def on_message(self, message: Any) -> None:
        # 2025-11-25; a 2026-07-28 listen stream's events come here too, stamped: not twice
        meta = getattr(getattr(message, "params", None), "meta", None)
        if meta:
            return
        if isinstance(message, types.ResourceListChangedNotification):
            self.note("resources")
        elif isinstance(message, types.PromptListChangedNotification):
            self.note("prompts")

    def note(self, kind: str) -> None:
        self.count[kind] += 1
        self._events[kind].set()

    async def next(self, kind: str) -> None:
        with anyio.fail_after(WAIT):
            await self._events[kind].wait()
        self._events[kind] = anyio.Event()


@asynccontextmanager
async def served(path: Path, mode: str, errlog_path: Path
                 ) -> AsyncIterator[tuple[Client, Heard]]:
    """``toolhost serve`` on stdio with the official client in ``mode``; a modern client has
    a listen stream for both lists open before this yields."""
    heard = Heard()
    params = StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                   args=["-m", "toolhost", "serve", str(path)])
    with open(errlog_path, "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode,
                          message_handler=heard.on_message) as client, \
                anyio.create_task_group() as tg:
            if client.protocol_version.startswith("2026"):
                ready = anyio.Event()

                async def listen() -> None:
                    async with client.listen(resources_list_changed=True,
                                             prompts_list_changed=True) as stream:
                        assert stream.honored.resources_list_changed
                        assert stream.honored.prompts_list_changed
                        ready.set()
                        async for event in stream:
                            heard.note("prompts" if type(event).__name__.startswith("Prompt")
                                       else "resources")

                tg.start_soon(listen)
                with anyio.fail_after(WAIT):
                    await ready.wait()
            yield client, heard
            tg.cancel_scope.cancel()


async def uris(client: Client) -> list[str]:
    return sorted(str(r.uri) for r in (await client.list_resources(cache_mode="bypass"))
                  .resources)


async def prompt_names(client: Client) -> list[str]:
    return sorted(p.name for p in (await client.list_prompts(cache_mode="bypass")).prompts)


async def shelve(client: Client, **arguments: Any) -> None:
    result = await client.call_tool("shelve", arguments)
    assert not result.is_error, result


@pytest.mark.parametrize("upstream_era", ["modern", "legacy"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_serve_follows_resources_and_prompts(mode: str, upstream_era: str,
                                                   tmp_path: Path) -> None:
    path = config(tmp_path, tmp_path / "upstream.log", legacy=upstream_era == "legacy")
    async with served(path, mode, tmp_path / "serve.log") as (client, heard):
        assert await uris(client) == ["notes://readme", "notes://secret"]
        assert await prompt_names(client) == ["summarize"]

        await shelve(client, add="todo")
        await heard.next("resources")
        assert await uris(client) == ["notes://readme", "notes://secret", "notes://todo"]
        read = await client.read_resource("notes://todo")
        assert read.contents[0].text == "note todo"

        await shelve(client, prompt="outline")
        await heard.next("prompts")
        assert await prompt_names(client) == ["outline", "summarize"]
        got = await client.get_prompt("outline", {"topic": "MCP"})
        assert got.messages[0].content.text == "outline about MCP"

        # gone upstream: gone here, and asking for it is a clean error, not a traceback
        await shelve(client, drop="readme", unprompt="outline")
        await heard.next("resources")
        await heard.next("prompts")
        assert await uris(client) == ["notes://secret", "notes://todo"]
        with pytest.raises(MCPError, match="Resource not found: notes://readme") as caught:
            await client.read_resource("notes://readme")
        assert caught.value.code == (-32002 if mode == "legacy" else -32602)  # SEP-2164
        with pytest.raises(MCPError, match="unknown prompt 'outline'"):
            await client.get_prompt("outline", {"topic": "x"})
        # the template still reads through
        assert (await client.read_resource("notes://item/7")).contents[0].text == "note 7"
        assert heard.count == {"resources": 2, "prompts": 2}
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
    await upstreams_gone(WAIT)


async def test_a_resource_dropped_before_its_news_lands_is_still_not_found(
        tmp_path: Path) -> None:
    # still listed here, gone upstream: the upstream's own "not found" reaches the client
    # as -32002, not as an internal error
    async with served(config(tmp_path, tmp_path / "upstream.log"), "legacy",
                      tmp_path / "serve.log") as (client, heard):
        await shelve(client, add="todo")
        await heard.next("resources")
        await shelve(client, drop="todo", quiet=True)
        assert "notes://todo" in await uris(client)
        with pytest.raises(MCPError) as caught:
            await client.read_resource("notes://todo")
        assert caught.value.code == -32002, caught.value
    assert "Traceback" not in (tmp_path / "serve.log").read_text()
    await upstreams_gone(WAIT)


async def test_a_failed_relist_keeps_the_content(tmp_path: Path) -> None:
    log = tmp_path / "serve.log"
    async with served(config(tmp_path, tmp_path / "upstream.log"), "legacy", log) as (
            client, heard):
        await shelve(client, fail=True)  # resources/list fails from now on, and it says so
        with anyio.fail_after(WAIT):
            while "listing them failed" not in log.read_text():
                await anyio.sleep(0.05)
        assert await uris(client) == ["notes://readme", "notes://secret"]
        assert (await client.read_resource("notes://readme")).contents[0].text == \
            "# Upstream notes"
        assert await prompt_names(client) == ["summarize"]
        assert heard.count == {"resources": 0, "prompts": 0}  # nothing changed downstream
    warnings = [line for line in log.read_text().splitlines() if "listing them failed" in line]
    assert len(warnings) == 1, warnings
    assert "notes: its upstream's resources or prompts changed, but listing them failed; " \
        "still serving the ones it had: upstream server 'notes': " in warnings[0]
    own = [line for line in log.read_text().splitlines() if "upstream notes:" not in line]
    assert not [line for line in own if "Traceback" in line]  # (the upstream's own: logged)
    await upstreams_gone(WAIT)


async def test_a_burst_of_announcements_is_coalesced(tmp_path: Path) -> None:
    upstream_log = tmp_path / "upstream.log"
    async with served(config(tmp_path, upstream_log), "legacy", tmp_path / "serve.log") as (
            client, heard):
        await shelve(client, add="n", more=20)  # 21 announcements in a row
        with anyio.fail_after(WAIT):
            while len(await uris(client)) < 23:
                await anyio.sleep(0.1)
        await anyio.sleep(1)  # anything still to come has come
        listings = [json.loads(line) for line in upstream_log.read_text().splitlines()]
        relisted = listings[[e.get("tool") for e in listings].index("shelve") + 1:]
        # the first announcement starts a listing; those during it cost one more
        assert 1 <= len(relisted) <= 2, relisted
        assert 1 <= heard.count["resources"] <= 2, heard.count
    await upstreams_gone(WAIT)


async def test_a_replaced_build_never_swaps_its_content_back() -> None:
    from toolhost.compile.content import ServerContent
    from toolhost.gateway.refresh import UpstreamFollower

    applied: list[str] = []

    async def tools(name: str, tools: tuple[Any, ...]) -> None:
        raise AssertionError("no tools here")

    async def content(name: str, content: ServerContent) -> None:
        applied.append(name)

    old, new = object(), object()
    follower = UpstreamFollower(tools, {"notes": old}, content)  # type: ignore[dict-item]
    stale = follower._guarded_content(old)  # type: ignore[arg-type]
    await stale("notes", ServerContent())
    follower.switch({"notes": new})  # type: ignore[dict-item]
    await stale("notes", ServerContent())  # the old build's follower, late
    await follower._guarded_content(new)("notes", ServerContent())  # type: ignore[arg-type]
    assert applied == ["notes", "notes"]


def test_run_installs_them_for_the_cli(tmp_path: Path) -> None:
    from tests.runner.live_harness import wired
    from toolhost.host import load_host

    path = config(tmp_path, tmp_path / "upstream.log")

    async def main() -> None:
        host = load_host(path)
        server = host.servers["notes"]

        async def ask(method: str, params: dict[str, Any]) -> dict[str, Any]:
            answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                          "params": params})
            assert answer is not None
            return answer

        async with wired(host) as w, anyio.create_task_group() as tg:
            tg.start_soon(w.control.run)
            tg.start_soon(w.live.follow_upstreams)
            await ask("tools/call", {"name": "shelve", "arguments": {"add": "cli"}})
            with anyio.fail_after(WAIT):
                while True:
                    listed = (await ask("resources/list", {}))["result"]["resources"]
                    if "notes://cli" in [r["uri"] for r in listed]:
                        break
                    await anyio.sleep(0.05)
            read = await ask("resources/read", {"uri": "notes://cli"})
            assert read["result"]["contents"][0]["text"] == "note cli"
            tg.cancel_scope.cancel()

    anyio.run(main)
    anyio.run(upstreams_gone, WAIT)
