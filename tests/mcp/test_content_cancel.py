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


GUARDED = {"resources/read": "read_guard", "resources/subscribe": "read_guard",
           "prompts/get": "prompt_guard", "completion/complete": "prompt_guard"}


def _guarded(request_id: int, method: str) -> dict[str, Any]:
    if method == "resources/subscribe":
        return {"jsonrpc": "2.0", "id": request_id, "method": method,
                "params": {"uri": "fast://x"}}
    if method == "completion/complete":  # on a prompt: the prompt guard decides it
        return {"jsonrpc": "2.0", "id": request_id, "method": method,
                "params": {"ref": {"type": "ref/prompt", "name": "quick"},
                           "argument": {"name": "x", "value": "a"}}}
    return request(request_id, method, slow=False)


async def asking(*args: Any) -> str | None:
    """A guard that asks a person who takes a minute to answer."""
    STARTED.append("asked")
    await anyio.sleep(60)
    return None


@pytest.mark.parametrize("method", list(GUARDED))
async def test_a_request_whose_guard_is_asking_is_cancelled_and_keeps_its_id(
        server: McpServer, method: str) -> None:
    """The guard of a content request may ask a person (an ask rule): a cancel sent meanwhile
    was lost (the request was not yet in the table cancels look in: the question stayed up,
    then the request ran and answered), and another request under its id was served."""
    setattr(server, GUARDED[method], asking)
    try:
        async with in_flight(server, _guarded(7, method), peer="cli") as flight:
            with anyio.fail_after(10):
                again = await server.handle(request(7, "tools/call", slow=False), peer="cli")
            assert again is not None and again["error"]["code"] == -32600, again
            await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled",
                                 "params": {"requestId": 7}}, peer="cli")
    finally:
        setattr(server, GUARDED[method], None)
    [answer] = flight.answers
    assert answer is not None and answer["id"] == 7, answer
    assert answer["error"]["code"] == -32800, answer
    assert not server._inflight
