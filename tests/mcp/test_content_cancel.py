"""``notifications/cancelled`` of a resources/read, a prompts/get or a completion/complete in
flight (the peer the transport names, as the CLI's control session does) cancels it as it
does a tools/call: the request answers -32800 at once, not when its function ends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer

from .mcp_testtools import content_server

MODULE = '''\
import anyio

async def slow(x: str) -> str:
    with open(x, "w") as marker:
        marker.write("started")
    await anyio.sleep(60)
    return "late"

async def slow_values(value: str) -> list:
    return [await slow(value)]

def fetch(x: str) -> str:
    return x
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      slow: {uri: "slow://{+x}", python: "cancelmod:slow"}
      done: {uri: "done://{x}", python: "cancelmod:fetch", complete: {x: "cancelmod:slow_values"}}
    prompts:
      wait: {python: "cancelmod:slow"}
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return content_server(tmp_path_factory.mktemp("cancel"), CONFIG, {"cancelmod": MODULE})


def _request(method: str, marker: Path) -> dict[str, Any]:
    if method == "resources/read":
        return {"uri": f"slow://{marker}"}
    if method == "prompts/get":
        return {"name": "wait", "arguments": {"x": str(marker)}}
    return {"ref": {"type": "ref/resource", "uri": "done://{x}"},
            "argument": {"name": "x", "value": str(marker)}}


@pytest.mark.parametrize("method", ["resources/read", "prompts/get", "completion/complete"])
def test_a_content_request_in_flight_is_cancelled(server: McpServer, tmp_path: Path,
                                                  method: str) -> None:
    marker = tmp_path / f"{method.replace('/', '-')}.started"
    answers: list[dict[str, Any] | None] = []

    async def go() -> None:
        async def ask() -> None:
            answers.append(await server.handle(
                {"jsonrpc": "2.0", "id": 7, "method": method,
                 "params": _request(method, marker)}, peer="cli"))

        with anyio.fail_after(10):  # the function sleeps 60 s: only a cancel ends it sooner
            async with anyio.create_task_group() as tg:
                tg.start_soon(ask)
                while not marker.exists():
                    await anyio.sleep(0.01)
                await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                     "params": {"requestId": 7}}, peer="cli")
    anyio.run(go)
    [answer] = answers
    assert answer is not None and answer["error"]["code"] == -32800, answer


def test_the_cli_cancels_a_read_in_flight(server: McpServer, tmp_path: Path) -> None:
    """Under ``toolhost run``: the CLI's notifications/cancelled (an mcp_message of the
    control session) answers the resources/read -32800, once."""
    from tests.protocol.session_harness import running_session

    marker = tmp_path / "cli-read.started"

    async def go() -> dict[str, Any]:
        async with running_session({"kb": server}) as (_, cli):
            await cli.mcp("read", {"jsonrpc": "2.0", "id": 5, "method": "resources/read",
                                   "params": {"uri": f"slow://{marker}"}}, server="kb")
            with anyio.fail_after(10):
                while not marker.exists():
                    await anyio.sleep(0.01)
            await cli.mcp("cancel", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                     "params": {"requestId": 5}}, server="kb")
            await cli.wait_for(lambda: {"cancel", "read"} <= cli.answers().keys(), timeout=10)
            return cli.answer("read")["response"]["mcp_response"]
    answer = anyio.run(go)
    assert answer["id"] == 5 and answer["error"]["code"] == -32800
