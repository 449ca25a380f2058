"""Every request to an upstream has a deadline: an upstream that answers initialize and then
nothing holds no command for ever, and is named in one line."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters

from toolhost.gateway.client import UpstreamConnection, UpstreamError
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, hostile_config


def tools(config: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``toolhost tools CONFIG``; a run that hangs (no deadline fired) fails the test by its
    subprocess timeout, far past the 2s deadlines these tests set (no wall-clock assertion:
    which deadline fired is read from the message)."""
    return subprocess.run(
        [sys.executable, "-m", "toolhost", "tools", str(config)],
        capture_output=True,
        text=True,
        timeout=90,
        env={**os.environ, **env},
    )


def test_an_upstream_that_never_lists_its_tools_is_a_located_error_in_time(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, connect_timeout="2s")
    done = tools(config, HOSTILE_MODE="hang_list")
    assert done.returncode == 1
    assert (
        "hostile.yaml:4:5: servers.h.mcp: upstream server 'h' did not list its tools "
        "within 2s (connect_timeout)" in done.stderr
    )
    assert "Traceback" not in done.stderr


def test_an_upstream_that_never_lists_its_resources_still_serves_its_tools(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, connect_timeout="2s")
    done = tools(config, HOSTILE_MODE="hang_resources")
    assert done.returncode == 0, done.stderr
    assert "mcp__h__echo" in done.stdout and "mcp__loc__hi" in done.stdout
    assert (
        "h: its upstream's resources and prompts are not offered: upstream server 'h' did "
        "not answer the listing of its resources within 2s" in done.stderr
    )


def test_every_request_has_a_deadline_even_without_a_timeout(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    spec = UpstreamSpec(
        command=(sys.executable, str(HOSTILE)),
        env={"HOSTILE_MODE": "hang_call", "HOSTILE_LOG": str(log)},
        connect_timeout=2.0,
    )
    connection = UpstreamConnection(spec, "h")
    try:
        assert connection.request_deadline == 600.0  # documented default
        assert connection.list_deadline == 2.0
        with pytest.raises(UpstreamError, match="did not answer the call of 'echo' within 1s"):
            connection.call_tool("echo", {"text": "x"}, 1.0)

        async def never(client: object) -> None:
            import anyio

            await anyio.sleep_forever()

        started = time.monotonic()
        with pytest.raises(UpstreamError, match="did not answer the read within 1s"):
            connection.run(never, 1.0, "read")
        assert time.monotonic() - started < 60  # a hang guard, not a speed bound
        assert [t["name"] for t in connection.list_tools()] == ["echo"]
        assert log.read_text().count('"initialize"') == 1  # the connection was kept
    finally:
        connection.close()


@pytest.mark.anyio
async def test_a_hanging_upstream_call_leaves_other_tools_answered(tmp_path: Path) -> None:
    config = hostile_config(tmp_path, timeout="2s")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolhost", "serve", str(config), "--all"],
        env={**os.environ, "HOSTILE_MODE": "hang_call"},
    )
    async with Client(params, mode="legacy") as client:
        import anyio

        async with anyio.create_task_group() as tg:
            hung: list[object] = []

            async def call() -> None:
                hung.append(await client.call_tool("h__echo", {"text": "x"}))

            tg.start_soon(call)
            await anyio.sleep(0.3)
            with anyio.fail_after(2):
                hi = await client.call_tool("loc__hi", {})
            assert hi.content[0].text.strip() == "hi"
        result = hung[0]
        assert getattr(result, "is_error", False)
