"""What a request's tool or content function left running (an asyncio task, a sync tool's
thread past its timeout) reaches no client once the request is answered: its ``ctx.elicit``,
``ctx.sample`` and ``ctx.roots`` raise ``ClientRequestError`` and send nothing. They put a
question to the person for a call that was over (over stdio the client got an
``elicitation/create`` after the call's answer), outside any request it could relate to."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.mcp.client_requests import ClientChannel, ClientRequestError, client_channel
from toolhost.results import ToolResult

from .mcp_testtools import content_server, make_tool

pytestmark = pytest.mark.anyio

KEPT: list[CallContext] = []
MODULE = '''\
from toolhost.backends.base import CallContext

def fetch(x: str, *, ctx: CallContext) -> str:
    from tests.mcp.test_call_end import KEPT
    KEPT[:] = [ctx]
    return x
'''
CONFIG = """\
toolhost: 1
servers:
  kb:
    resources:
      kept: {uri: "kept://{x}", python: "endmod:fetch"}
    prompts:
      kept: {python: "endmod:fetch"}
"""


async def keep(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    KEPT[:] = [ctx]
    return ToolResult.text("kept")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    root: Path = tmp_path_factory.mktemp("end")
    core = content_server(root, CONFIG, {"endmod": MODULE})
    core.set_tools([make_tool("keep", keep, schema={})])
    return core


REQUESTS = {"tools/call": {"name": "keep"}, "resources/read": {"uri": "kept://a"},
            "prompts/get": {"name": "kept", "arguments": {"x": "a"}}}
ASKS = {"elicit": lambda ctx: ctx.elicit("still there?"),
        "sample": lambda ctx: ctx.sample("hello"),
        "roots": lambda ctx: ctx.roots()}


@pytest.mark.parametrize("ask", list(ASKS))
@pytest.mark.parametrize("method", list(REQUESTS))
@pytest.mark.parametrize("peer", [None, "session"])
async def test_a_request_answered_asks_the_client_nothing_more(
        server: McpServer, method: str, ask: str, peer: Any) -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    channel = ClientChannel({"elicitation": {}, "sampling": {}, "roots": {}}, send)
    KEPT.clear()
    with client_channel(channel):
        answer = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                      "params": REQUESTS[method]}, notify=send, peer=peer)
    assert answer is not None and "result" in answer, answer
    (ctx,) = KEPT
    with pytest.raises(ClientRequestError, match="was answered already"), \
            anyio.fail_after(10):  # sent, it would wait for the client's answer
        await ASKS[ask](ctx)  # a task the call left behind, after the answer
    assert sent == []
    assert len(channel.pending) == 0
