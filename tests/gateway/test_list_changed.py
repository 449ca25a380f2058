"""An upstream that changes its tool list while served: toolhost re-lists, reshapes, checks
the lock and tells its own clients (``serve``: both client eras, stdio and HTTP upstreams;
``run``: the CLI, through the control protocol)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

from toolhost.lockfile import lock_path

from .conftest import UPSTREAM, gateway_config, http_upstream, upstream_processes

pytestmark = pytest.mark.anyio

DENY_SECRETS = "  deny:\n    - tool: mcp__gh__secret_*\n      message: No secrets.\n"


def config_for(tmp_path: Path, **kw: Any) -> Path:
    """The gateway config, plus a glob rule for tools that do not exist yet."""
    config = gateway_config(tmp_path, **kw)
    config.write_text(config.read_text().replace("  deny:\n", DENY_SECRETS, 1))
    return config


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content)


async def names(client: Client) -> list[str]:
    return sorted(t.name for t in (await client.list_tools(cache_mode="bypass")).tools)


class Announcements:
    """The downstream tools/list_changed a client hears, in either era."""

    def __init__(self) -> None:
        self.heard = 0
        self._event = anyio.Event()

    async def on_message(self, message: Any) -> None:
        # 2025-11-25; a 2026-07-28 listen stream's events come here too, stamped: not twice
        meta = getattr(message.params, "meta", None) if hasattr(message, "params") else None
        if isinstance(message, types.ToolListChangedNotification) and not meta:
            self.note()

    def note(self) -> None:
        self.heard += 1
        self._event.set()

    async def next(self) -> None:
        with anyio.fail_after(20):
            await self._event.wait()
        self._event = anyio.Event()


@contextmanager
def _telling(log: Path) -> Iterator[None]:
    """A failure (e.g. serve ending before it answers initialize: "Connection closed")
    carries the end of what serve said, so a run on a loaded machine says why."""
    try:
        yield
    except BaseException as exc:
        exc.add_note(f"toolhost serve's stderr ({log}), its end:\n{log.read_text()[-3000:]}")
        raise


@asynccontextmanager
async def served(config: Path, mode: str, log: Path, env: dict[str, str], *options: str
                 ) -> AsyncIterator[tuple[Client, Announcements]]:
    """``toolhost serve CONFIG [OPTIONS]`` on stdio with the official client in ``mode``; for
    a modern client a listen stream is open before this yields."""
    heard = Announcements()
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "toolhost", "serve", str(config), *options],
                                   env={**os.environ, **env})
    with open(log, "w") as errlog, _telling(log):
        async with Client(stdio_client(params, errlog=errlog), mode=mode,
                          message_handler=heard.on_message) as client, \
                anyio.create_task_group() as tg:
            if client.protocol_version.startswith("2026"):
                ready = anyio.Event()

                async def listen() -> None:
                    async with client.listen(tools_list_changed=True) as stream:
                        assert stream.honored.tools_list_changed
                        ready.set()
                        async for _event in stream:
                            heard.note()

                tg.start_soon(listen)
                with anyio.fail_after(20):
                    await ready.wait()
            yield client, heard
            tg.cancel_scope.cancel()


async def gone() -> None:
    for _ in range(100):
        if not upstream_processes():
            return
        await anyio.sleep(0.1)
    assert upstream_processes() == []


@pytest.mark.parametrize("upstream_era", ["modern", "legacy"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_serve_follows_the_upstream(mode: str, upstream_era: str, tmp_path: Path) -> None:
    config = config_for(tmp_path)
    env = {"UPSTREAM_GROW": "1", "UPSTREAM_LEGACY": "1" if upstream_era == "legacy" else ""}
    async with served(config, mode, tmp_path / "serve.log", env) as (client, heard):
        assert client.protocol_version.startswith("2026" if mode == "auto" else "2025")
        assert await names(client) == ["echo", "grow", "search"]
        # excluded by `delete_*`: nothing changes downstream, so nothing is announced
        await client.call_tool("grow", {"name": "delete_all"})
        # a new tool; and the reshaped search_issues (renamed `search`) goes away
        grown = await client.call_tool("grow", {"name": "greet", "drop": "search_issues"})
        assert text_of(grown) == "added greet"
        await heard.next()
        assert await names(client) == ["echo", "greet", "grow"]
        assert text_of(await client.call_tool("greet", {"who": "ann"})) == \
            "hello ann from greet"
        # a new tool meets the rules already written for it
        await client.call_tool("grow", {"name": "secret_keys"})
        await heard.next()
        assert "secret_keys" in await names(client)
        denied = await client.call_tool("secret_keys", {"who": "me"})
        assert denied.is_error and text_of(denied) == "No secrets."
        assert heard.heard == 2  # the excluded tool caused no announcement
    await gone()


async def test_a_reload_that_brings_the_first_upstream_follows_it(tmp_path: Path) -> None:
    """Serving starts without the gateway when no server is imported; a reload that imports
    one starts following its upstream."""
    config = config_for(tmp_path)
    gateway = config.read_text()
    config.write_text("toolhost: 1\nservers:\n  gh:\n    tools:\n"
                      "      hi: {command: [echo, hi]}\n")
    async with served(config, "legacy", tmp_path / "serve.log", {"UPSTREAM_GROW": "1"},
                      "--watch", "--watch-interval", "0.05") as (client, heard):
        assert await names(client) == ["hi"]
        config.write_text(gateway)
        await heard.next()
        assert await names(client) == ["echo", "grow", "search"]
        await client.call_tool("grow", {"name": "greet"})
        await heard.next()
        assert "greet" in await names(client)
    await gone()


async def test_a_burst_of_changes_is_coalesced(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    async with served(config, "legacy", tmp_path / "serve.log", {"UPSTREAM_GROW": "1"}) as (
            client, heard):
        grown = await client.call_tool("grow", {"name": "t", "more": 20})  # 21 announcements
        assert text_of(grown) == "added t and 20 more"
        with anyio.fail_after(20):
            while len(await names(client)) < 24:
                await anyio.sleep(0.1)
        await anyio.sleep(1)  # anything still to come has come
        # the burst is let end before listing; any announcement during it costs one more
        assert 1 <= heard.heard <= 2, heard.heard
    await gone()


def toolhost(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *args], capture_output=True,
                          text=True, timeout=240, env={**os.environ, **env})


async def test_drift_from_the_lock_withdraws_the_upstream_until_accepted(
        tmp_path: Path) -> None:
    config = config_for(tmp_path)
    env = {"UPSTREAM_GROW": "1"}
    assert toolhost("lock", str(config), env=env).returncode == 0
    log = tmp_path / "serve.log"
    async with served(config, "legacy", log, env) as (client, heard):
        assert await names(client) == ["echo", "grow", "search"]
        await client.call_tool("grow", {"name": "greet"})  # not in the lock: unreviewed
        await heard.next()
        assert await names(client) == []  # fail closed: none of the upstream's tools
        with pytest.raises(MCPError, match="Unknown tool: 'echo'"):
            await client.call_tool("echo", {"text": "hi"})
        errors = [line for line in log.read_text().splitlines() if "ERROR" in line]
        assert len(errors) == 1, errors
        assert "gh: its upstream's tools changed and are withdrawn (none served) until " \
            f"{lock_path(config)} is updated" in errors[0]
        assert "upstream tool 'greet' of 'gh' is new since gateway.lock" in errors[0]

        # someone reviews the new tool and accepts it into the lock: the tools come back
        lock = json.loads(lock_path(config).read_text())
        lock["upstreams"]["gh"]["greet"] = await greet_definition()
        lock_path(config).write_text(json.dumps(lock))
        await heard.next()
        assert await names(client) == ["echo", "greet", "grow", "search"]
        assert text_of(await client.call_tool("echo", {"text": "back"})) == "back"
    assert "tools fit again" in log.read_text()
    await gone()


async def greet_definition() -> dict[str, Any]:
    """What `toolhost lock` would record for the grown tool: the upstream's own code, listed
    in-process over a 2025-11-25 connection (as the served one is), not a third process."""
    from toolhost.gateway.pins import definition

    from . import upstream_server

    if not getattr(upstream_server, "greeted", False):  # (once per test process)
        upstream_server._add_hello("greet")
        upstream_server.greeted = True  # type: ignore[attr-defined]
    async with Client(upstream_server.app, mode="legacy") as direct:
        listed = await direct.list_tools(cache_mode="bypass")
    tool = next(t for t in listed.tools if t.name == "greet")
    return definition(tool.model_dump(by_alias=True, exclude_none=True))


async def test_a_restarted_upstream_is_listed_again(tmp_path: Path) -> None:
    config = config_for(tmp_path)
    env = {"UPSTREAM_GROW": "1", "UPSTREAM_CRASH_AFTER": "2"}
    async with served(config, "legacy", tmp_path / "serve.log", env) as (client, heard):
        await client.call_tool("grow", {"name": "greet"})  # the upstream's first call
        await heard.next()
        assert "greet" in await names(client)
        crashed = await client.call_tool("echo", {"text": "x"})  # its second: it exits
        assert crashed.is_error
        # the next call starts it again, without `greet`; announcements may have been
        # missed while it was down, so the restart is re-listed like a change
        answer = await client.call_tool("echo", {"text": "again"})
        assert text_of(answer) == "again", text_of(answer)
        await heard.next()
        assert await names(client) == ["echo", "grow", "search"]
    await gone()


async def test_http_upstream(tmp_path: Path) -> None:
    with http_upstream(UPSTREAM_GROW="1") as port:
        config = config_for(tmp_path, mcp=f"{{url: 'http://127.0.0.1:{port}/mcp'}}")
        async with served(config, "legacy", tmp_path / "serve.log", {}) as (client, heard):
            await client.call_tool("grow", {"name": "greet"})
            await heard.next()
            assert "greet" in await names(client)
            assert text_of(await client.call_tool("greet", {"who": "bo"})) == \
                "hello bo from greet"


async def test_a_failed_relist_keeps_the_tools(tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    from toolhost.config import load_config
    from toolhost.gateway.compile import compile_upstream
    from toolhost.gateway.refresh import UpstreamRefresher

    script = tmp_path / "upstream.sh"  # deleted below: the upstream cannot come back
    script.write_text(f"#!/bin/sh\nexec {sys.executable} {UPSTREAM} stdio\n")
    script.chmod(0o755)
    config = load_config(config_for(tmp_path, mcp=f"{{command: [{script}], "
                                    "env: {UPSTREAM_CRASH_AFTER: '1'}}"))
    upstream = await anyio.to_thread.run_sync(compile_upstream, config.servers["gh"])
    applied: list[tuple[Any, ...]] = []

    async def apply(name: str, tools: tuple[Any, ...]) -> None:
        applied.append(tools)

    try:
        assert [t.name for t in upstream.tools] == ["search", "echo"]
        script.unlink()
        with pytest.raises(Exception, match="upstream server 'gh'"):  # it exits mid-call
            await anyio.to_thread.run_sync(upstream.connection.call_tool, "echo",
                                           {"text": "x"}, None)
        with caplog.at_level("WARNING", logger="toolhost.gateway"):
            await UpstreamRefresher("gh", upstream, apply).refresh()
        assert applied == []
        assert [t.name for t in upstream.tools] == ["search", "echo"]
        assert "gh: its upstream's tools changed, but listing them failed; still serving " \
            "the 2 tools it had: cannot start upstream server 'gh'" in caplog.text
    finally:
        await upstream.aclose()
    await gone()


def test_run_tells_the_cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.runner.live_harness import wired
    from toolhost.host import load_host

    monkeypatch.setenv("UPSTREAM_GROW", "1")
    config = config_for(tmp_path)
    sent: list[dict[str, Any]] = []

    async def main() -> None:
        host = load_host(config)
        told = anyio.Event()

        async def call(name: str, arguments: dict[str, Any]) -> str:
            answer = await host.servers["gh"].handle({
                "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                "params": {"name": name, "arguments": arguments}})
            assert answer is not None
            return str(answer["result"]["content"][0]["text"])

        async with wired(host) as w, anyio.create_task_group() as tg:
            tg.start_soon(w.acking_cli, sent, told.set)
            tg.start_soon(w.control.run)
            tg.start_soon(w.live.follow_upstreams)
            assert await call("grow", {"name": "greet"}) == "added greet"
            with anyio.fail_after(20):
                await told.wait()
            assert [m["request"] for m in sent] == [{
                "subtype": "mcp_message", "server_name": "gh",
                "message": {"jsonrpc": "2.0",
                            "method": "notifications/tools/list_changed"}}]
            assert sorted(t.name for t in host.servers["gh"].tools) == [
                "echo", "greet", "grow", "search"]
            assert await call("greet", {"who": "cli"}) == "hello cli from greet"
            tg.cancel_scope.cancel()

    anyio.run(main)
    anyio.run(gone)
