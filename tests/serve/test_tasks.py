"""Tasks (SEP-2663) over ``toolhost serve``'s HTTP: one in-process server (the real ASGI app,
``ServedServer`` and core) probed many ways: a task created, polled and cancelled with the
routing headers SEP-2663 asks for (``Mcp-Name`` = the task id), a mismatched or missing one
refused (400, -32020), the gating errors' HTTP statuses, and a task another caller started
is unknown to this one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import anyio
import httpx

from tests.modern import CAPABILITIES_KEY, modern_meta
from toolhost.backends.base import CallContext
from toolhost.mcp import McpServer
from toolhost.mcp.tasks import TASKS_EXTENSION
from toolhost.results import ToolResult
from toolhost.serve.http import HttpServer

from ..mcp.mcp_testtools import make_tool


def meta(tasks: bool = True) -> dict[str, Any]:
    out = modern_meta()
    if tasks:
        out[CAPABILITIES_KEY]["extensions"] = {TASKS_EXTENSION: {}}
    return out


def test_a_task_over_http() -> None:
    release = anyio.Event()
    stopped: list[str] = []

    async def waits(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        try:
            if arguments.get("name") != "quick":
                await release.wait()
        except BaseException:
            stopped.append(str(arguments.get("name")))
            raise
        return ToolResult.text(f"done {arguments.get('name')}")

    core = McpServer("s", "1", [make_tool("job", waits, task_support="optional"),
                                make_tool("must", waits, task_support="required")])
    app = HttpServer(core).app
    ids = iter(range(1, 1000))

    async def post(client: httpx.AsyncClient, method: str, params: dict[str, Any], *,
                   tasks: bool = True, name: str | None = None,
                   headers: dict[str, str] | None = None) -> tuple[int, Any]:
        body = {"jsonrpc": "2.0", "id": next(ids), "method": method,
                "params": {**params, "_meta": meta(tasks)}}
        sent = {"content-type": "application/json", "mcp-method": method,
                "accept": "application/json, text/event-stream",
                "mcp-protocol-version": "2026-07-28"}
        if name is not None:
            sent["mcp-name"] = name
        sent.update(headers or {})
        answer = await client.post("/mcp", content=json.dumps(body).encode(), headers=sent)
        return answer.status_code, answer.json()

    async def run() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport,
                                     base_url="http://127.0.0.1") as client:
            status, created = await post(client, "tools/call",
                                         {"name": "job", "arguments": {"name": "a"}}, name="job")
            assert status == 200 and created["result"]["resultType"] == "task", created
            task_id = created["result"]["taskId"]
            status, got = await post(client, "tasks/get", {"taskId": task_id}, name=task_id)
            assert status == 200 and got["result"]["status"] == "working"
            # the routing header must name the task the body names, and be there
            for name in ("another-task", None):
                status, refused = await post(client, "tasks/get", {"taskId": task_id},
                                             name=name)
                assert status == 400 and refused["error"]["code"] == -32020, refused
            # without the extension: 400 -32021 (the tasks methods, a required tool)
            status, gated = await post(client, "tasks/get", {"taskId": task_id},
                                       name=task_id, tasks=False)
            assert status == 400 and gated["error"]["code"] == -32021
            status, gated = await post(client, "tools/call", {"name": "must", "arguments": {
                "name": "b"}}, name="must", tasks=False)
            assert status == 400 and gated["error"]["code"] == -32021
            assert gated["error"]["data"]["requiredCapabilities"] == {
                "extensions": {TASKS_EXTENSION: {}}}
            # an unknown task: 400 -32602; the v1 methods: 404 -32601
            status, unknown = await post(client, "tasks/cancel", {"taskId": "nope"},
                                         name="nope")
            assert status == 400 and unknown["error"]["code"] == -32602
            status, gone = await post(client, "tasks/list", {})
            assert status == 404 and gone["error"]["code"] == -32601
            # cancel stops the tool
            status, ack = await post(client, "tasks/cancel", {"taskId": task_id},
                                     name=task_id)
            assert status == 200 and ack["result"]["resultType"] == "complete"
            assert "taskId" not in ack["result"]
            for _ in range(1000):
                status, got = await post(client, "tasks/get", {"taskId": task_id},
                                         name=task_id)
                if stopped:
                    break
                await anyio.sleep(0.005)
            assert got["result"]["status"] == "cancelled" and stopped == ["a"]
            # a quick one completes with its result inlined
            status, created = await post(client, "tools/call", {
                "name": "job", "arguments": {"name": "quick"}}, name="job")
            task_id = created["result"]["taskId"]
            for _ in range(1000):
                status, got = await post(client, "tasks/get", {"taskId": task_id},
                                         name=task_id)
                if got["result"]["status"] != "working":
                    break
                await anyio.sleep(0.005)
            assert got["result"]["status"] == "completed"
            assert got["result"]["result"]["content"][0]["text"] == "done quick"

    anyio.run(run)
