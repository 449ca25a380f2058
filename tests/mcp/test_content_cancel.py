"""``notifications/cancelled`` of a resources/read, a prompts/get or a completion/complete in
flight (the peer the transport names, as the CLI's control session does) cancels it as it
does a tools/call: the request answers -32800 at once, not when its function ends."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer

from .inflight import METHODS, STARTED, build, in_flight, request

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return build(tmp_path_factory.mktemp("cancel"), "cancelmod")


@pytest.mark.parametrize("method", METHODS)
async def test_a_request_in_flight_is_cancelled(server: McpServer, method: str) -> None:
    async with in_flight(server, request(7, method), peer="cli") as flight:
        await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 7}}, peer="cli")
    [answer] = flight.answers
    assert answer is not None and answer["error"]["code"] == -32800, answer
    assert answer["id"] == 7


async def test_the_cli_cancels_a_read_in_flight(server: McpServer) -> None:
    """Under ``toolhost run``: the CLI's notifications/cancelled (an mcp_message of the
    control session) answers the resources/read -32800, once."""
    from tests.protocol.session_harness import running_session

    answer: dict[str, Any]
    STARTED.clear()
    async with running_session({"kb": server}) as (_, cli):
        await cli.mcp("read", request(5, "resources/read"), server="kb")
        with anyio.fail_after(10):
            while not STARTED:
                await anyio.sleep(0.005)
        await cli.mcp("cancel", {"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": 5}}, server="kb")
        await cli.wait_for(lambda: {"cancel", "read"} <= cli.answers().keys(), timeout=10)
        answer = cli.answer("read")["response"]["mcp_response"]
    assert answer["id"] == 5 and answer["error"]["code"] == -32800
