"""``toolhost.load`` (the SDK adapter) follows its imported servers like ``run`` and ``serve``:
an upstream that was down when the config was loaded (``required: false``) is retried in the
background and served once it is up, behind the same rules; closing the host during a retry
leaves nothing running."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from claude_agent_sdk import PermissionResultDeny, ToolPermissionContext
from mcp.client.client import Client

from tests.gateway.test_pending import alive, pending_config
from toolhost.sdk import load

pytestmark = pytest.mark.anyio


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


async def test_a_late_upstream_is_retried_and_served_behind_the_rules(tmp_path: Path) -> None:
    config = pending_config(tmp_path, fails=1)  # the first start (at load) crashes
    async with load(config) as host:
        assert host.upstreams.following
        async with Client(host.mcp_servers["gh"]["instance"], mode="legacy") as client:
            assert (await client.list_tools()).tools == []
            waiting = await client.call_tool("echo", {"text": "x"})
            assert waiting.is_error
            assert text_of(waiting).startswith("upstream server 'gh' is not available yet: ")
            with anyio.fail_after(60):  # a hang guard: it is retried 1 s after the load
                while not (await client.list_tools()).tools:
                    await anyio.sleep(0.1)
            names = [t.name for t in (await client.list_tools()).tools]
            assert "echo" in names and not any(n.startswith("delete_") for n in names)
            assert text_of(await client.call_tool("echo", {"text": "hi"})) == "hi"
            # the deny on its argument holds, asked by the CLI or not
            denied = await client.call_tool("echo", {"text": "my PASSWORD"})
            assert denied.is_error and text_of(denied) == "No password hunting."
        asked = await host.can_use_tool("mcp__gh__echo", {"text": "password"},
                                        ToolPermissionContext(tool_use_id="toolu_9"))
        assert isinstance(asked, PermissionResultDeny)
        assert asked.message == "No password hunting."
    assert not host.upstreams.following


async def test_closing_the_host_during_a_retry_leaves_nothing_running(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The start at load fails; every retry reads its first message and never answers. The
    retry the close cuts short is no news (it used to warn that the upstream "closed the
    connection", with a cancel scope's repr)."""
    config = pending_config(tmp_path, fails=1000, mode="crash,silent", connect_timeout="1s")
    pids = tmp_path / "starts.pids"
    host = load(config)
    try:
        host.options()  # the first use inside the event loop starts following
        assert host.upstreams.following
        with anyio.fail_after(30):  # the start at load failed, a retry under way
            while not pids.exists() or not pids.read_text().split():
                await anyio.sleep(0.05)
    finally:
        caplog.clear()
        await host.aclose()
    assert "closed the connection" not in caplog.text
    with anyio.fail_after(10):
        while [p for p in map(int, pids.read_text().split()) if alive(p)]:
            await anyio.sleep(0.1)
    assert os.path.exists(pids)


def test_a_host_used_by_two_asyncio_runs_follows_in_the_second(tmp_path: Path) -> None:
    """``asyncio.run`` cancels the follower with its loop; the next loop's use starts it again."""
    import asyncio

    config = pending_config(tmp_path, fails=1)
    host = load(config)

    async def first() -> None:
        host.options()
        assert host.upstreams.following
        await asyncio.sleep(0.2)  # (the program's work)

    async def second() -> list[str]:
        host.options()
        assert host.upstreams.following
        core = host.host.servers["gh"]
        with anyio.fail_after(60):  # a hang guard: retried 1 s after this start
            while not core.tools:
                await anyio.sleep(0.1)
        names = [t.name for t in core.tools]
        await host.aclose()
        return names

    asyncio.run(first())
    assert not host.upstreams.following
    assert "echo" in asyncio.run(second())
