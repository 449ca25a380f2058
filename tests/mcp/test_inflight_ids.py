"""A JSON-RPC id names one request at a time. The core finds the request a
``notifications/cancelled`` names in its table of requests in flight, by (peer, id): a
second request of the same peer under the id of one still running (a resources/read beside
a prompts/get, as the CLI's control session passes them through) took the first's place
there, the first could no longer be cancelled, and the cancel meant for it stopped the
second. The second is refused (-32600) before it runs; the id is free again once the first
is answered."""

from __future__ import annotations

import itertools

import anyio
import pytest

from toolhost.mcp import McpServer

from .inflight import METHODS, build, in_flight, quiet, request

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return build(tmp_path_factory.mktemp("ids"), "idmod")


@pytest.mark.parametrize(("first", "second"), list(itertools.product(METHODS, METHODS)))
async def test_an_id_in_flight_is_refused_and_the_cancel_reaches_the_first(
        server: McpServer, first: str, second: str) -> None:
    async with in_flight(server, request(7, first, "a"), peer="p") as flight:
        with anyio.fail_after(10):  # served, it would run for a minute
            refused = await server.handle(request(7, second, "b"), notify=quiet, peer="p")
        assert refused is not None and refused["id"] == 7, refused
        assert refused["error"]["code"] == -32600
        assert "already the id of a request in flight" in refused["error"]["message"]
        other = await server.handle(request(7, "tools/call", "c", slow=False), notify=quiet,
                                    peer="q")  # another peer's 7: its own
        assert other is not None and "result" in other, other
        await server.handle({"jsonrpc": "2.0", "method": "notifications/cancelled",
                             "params": {"requestId": 7}}, peer="p")
    (cancelled,) = flight.answers
    assert cancelled is not None and cancelled["error"]["code"] == -32800
    again = await server.handle(request(7, second, "a", slow=False), notify=quiet, peer="p")
    assert again is not None and "result" in again, again
    assert not server._inflight and not server._progress_tokens


async def test_ids_of_requests_that_are_never_tracked_are_not_refused(
        server: McpServer) -> None:
    # without a peer the transport keeps its ids itself (stdio refuses a repeated one)
    async with in_flight(server, request(7, "tools/call", "a"), peer=None) as flight:
        answer = await server.handle(request(7, "resources/read", "b", slow=False),
                                     notify=quiet)
        flight.stop()
    assert answer is not None and "result" in answer, answer
