"""What a request's tool or content function left running (an asyncio task, a sync tool's
thread past its timeout) reaches no client once the request is answered: its ``ctx.elicit``,
``ctx.sample`` and ``ctx.roots`` raise ``ClientRequestError`` and send nothing. They put a
question to the person for a call that was over (over stdio the client got an
``elicitation/create`` after the call's answer), outside any request it could relate to."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.mcp import McpServer
from toolhost.mcp.client_requests import ClientChannel, ClientRequestError, client_channel

from .inflight import KEPT, METHODS, build, request

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return build(tmp_path_factory.mktemp("end"), "endmod")


ASKS = {"elicit": lambda ctx: ctx.elicit("still there?"),
        "sample": lambda ctx: ctx.sample("hello"),
        "roots": lambda ctx: ctx.roots()}


@pytest.mark.parametrize("ask", list(ASKS))
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("peer", [None, "session"])
async def test_a_request_answered_asks_the_client_nothing_more(
        server: McpServer, method: str, ask: str, peer: Any) -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    channel = ClientChannel({"elicitation": {}, "sampling": {}, "roots": {}}, send)
    KEPT.clear()
    with client_channel(channel):
        answer = await server.handle(request(1, method, slow=False), notify=send, peer=peer)
    assert answer is not None and "result" in answer, answer
    (ctx,) = KEPT
    with pytest.raises(ClientRequestError, match="was answered already"), \
            anyio.fail_after(10):  # sent, it would wait for the client's answer
        await ASKS[ask](ctx)  # a task the call left behind, after the answer
    assert sent == []
    assert len(channel.pending) == 0
