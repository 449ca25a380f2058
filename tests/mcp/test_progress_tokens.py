"""Progress tokens name one active request each (the spec: a client's tokens "MUST be unique
across all active requests"; progress "MUST only reference tokens ... provided in an active
request"). A second request under a token a request of the same peer has in flight is refused
(-32602) before it runs: served, both requests' notifications went out under one token, each
counting up from its own start, and the client could not tell them apart. The token is free
again once its request is answered, however it ends. And a request's ``ctx.progress`` sends
nothing once the request is answered (a task the tool left running reported into whatever
request the client gave that token to next)."""

from __future__ import annotations

import itertools
import logging
from typing import Any

import anyio
import pytest

from tests.modern import modern_meta
from toolhost.mcp import McpServer
from toolhost.results import ToolResult

from .inflight import KEPT, METHODS, build, in_flight, quiet, request

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> McpServer:
    return build(tmp_path_factory.mktemp("tokens"), "tokenmod")


@pytest.mark.parametrize(("first", "second"), list(itertools.product(METHODS, METHODS)))
@pytest.mark.parametrize("peer", ["session-a", None])  # None: stdio's one connection
async def test_a_token_in_flight_is_refused_to_a_second_request_until_the_first_ends(
        server: McpServer, first: str, second: str, peer: Any) -> None:
    heard: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        heard.append(message)

    async with in_flight(server, request(1, first, "T"), peer=peer, notify=notify) as flight:
        with anyio.fail_after(10):  # served, it would run for a minute
            refused = await server.handle(request(2, second, "T"), notify=notify, peer=peer)
        assert refused is not None and refused["id"] == 2
        assert refused["error"]["code"] == -32602
        assert "progressToken 'T' is already the token of a request in flight" in \
            refused["error"]["message"]
        # another token of the same peer, the same token of another peer: served
        for other, other_peer in (("U", peer), ("T", "session-b")):
            served = await server.handle(request(3, "tools/call", other, slow=False),
                                         notify=quiet, peer=other_peer)
            assert served is not None and "result" in served, served
        flight.stop()  # the first ends (cancelled): its token is free again
    assert [m["params"]["progressToken"] for m in heard] == ["T"]  # the first's only
    again = await server.handle(request(4, second, "T", slow=False), notify=quiet, peer=peer)
    assert again is not None and "result" in again, again
    assert not server._progress_tokens


@pytest.mark.parametrize("token", [1, "1", 1.5, "T" * 1000])
async def test_tokens_are_told_apart_by_value(server: McpServer, token: Any) -> None:
    async with in_flight(server, request(1, "tools/call", token), peer="p") as flight:
        same = await server.handle(request(2, "tools/call", token, slow=False),
                                   notify=quiet, peer="p")
        other = await server.handle(request(3, "tools/call", None, slow=False),
                                    notify=quiet, peer="p")  # no token at all: served
        flight.stop()
    assert same is not None and same["error"]["code"] == -32602
    assert other is not None and "result" in other


@pytest.mark.parametrize("failure", ["tool raises", "bad requestState", "unknown tool",
                                     "guard raises"])
async def test_a_request_that_fails_frees_its_token(server: McpServer, failure: str) -> None:
    message = request(1, "tools/call", "F", slow=False)
    params = message["params"]
    if failure == "tool raises":
        params["name"] = "fails"
    elif failure == "bad requestState":
        params["_meta"] = {**modern_meta(), "progressToken": "F"}
        params["requestState"] = "not one toolhost sent"
    elif failure == "unknown tool":
        params["name"] = "nope"

    async def guard(*args: Any) -> ToolResult | None:
        raise RuntimeError("guard bug")

    server.guard = guard if failure == "guard raises" else None
    try:
        for request_id in (1, 2):  # the second is never refused for the first's token
            message["id"] = request_id
            answer = await server.handle(message, notify=quiet, peer="p")
            assert answer is not None
            assert "progressToken" not in str(answer.get("error")), answer
    finally:
        server.guard = None
    assert not server._progress_tokens


@pytest.mark.parametrize("method", METHODS)
async def test_progress_after_the_answer_is_not_sent(
        server: McpServer, method: str, caplog: pytest.LogCaptureFixture) -> None:
    heard: list[dict[str, Any]] = []

    async def notify(message: dict[str, Any]) -> None:
        heard.append(message)

    KEPT.clear()
    answer = await server.handle(request(1, method, "T", slow=False), notify=notify,
                                 peer="p")
    assert answer is not None and "result" in answer, answer
    (sender,) = (ctx.progress for ctx in KEPT)
    before = len(heard)
    with caplog.at_level(logging.DEBUG, logger="toolhost.mcp"):
        await sender(50, 100, "late")  # a task the call left behind, after the answer
    assert len(heard) == before
    assert "the request was answered already" in caplog.text
