"""What a request sets for its session (a subscription, a log level) while the session is
ended (``DELETE``) is forgotten with it: a ``resources/subscribe`` whose permission check
still runs when the client ends its session must not leave a subscription for a peer that
is gone (it would be told of changes nobody hears, and hold a subscriber's place). In
process: the real ASGI app and core."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx

from toolhost.compile import compile_tools
from toolhost.config import load_config
from toolhost.mcp import McpServer
from toolhost.serve.http import HttpServer

from .test_route_headers import ACCEPT

INIT = {"protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}


def test_a_subscribe_answered_after_its_session_ended_is_forgotten(tmp_path: Path) -> None:
    (tmp_path / "readme.md").write_text("read me\n")
    (tmp_path / "kb.yaml").write_text("toolhost: 1\nservers:\n  kb:\n    resources:\n"
                                      "      readme: {file: readme.md}\n")
    compiled = compile_tools(load_config(tmp_path / "kb.yaml", layers=False))
    core = McpServer("kb", "1", compiled.servers["kb"], content=compiled.content["kb"])
    checking, go_on = anyio.Event(), anyio.Event()

    async def slow_guard(uri: str) -> str | None:  # as an `ask` rule waits for a person
        checking.set()
        await go_on.wait()
        return None

    uri = next(compiled.content["kb"].resources[0].listed())["uri"]
    core.read_guard = slow_guard
    server = HttpServer(core)

    async def run() -> list[int]:
        transport = httpx.ASGITransport(app=server.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            def headers(session: str | None) -> list[tuple[str, str]]:
                sent = [("content-type", "application/json"), ACCEPT]
                return sent + ([("mcp-session-id", session)] if session else [])

            init = await client.post("/mcp", headers=headers(None), content=json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INIT}))
            session = init.headers["mcp-session-id"]
            statuses: list[int] = []

            async def subscribe() -> None:
                answer = await client.post("/mcp", headers=headers(session), content=(
                    json.dumps({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe",
                                "params": {"uri": uri}})))
                statuses.append(answer.status_code)
                assert "result" in answer.json(), answer.text

            with anyio.fail_after(10):
                async with anyio.create_task_group() as tg:
                    tg.start_soon(subscribe)
                    await checking.wait()
                    ended = await client.delete("/mcp", headers=headers(session))
                    statuses.append(ended.status_code)
                    go_on.set()
            return statuses

    statuses = anyio.run(run)
    assert statuses == [204, 200], statuses
    assert dict(core.resource_subscriptions()) == {}
