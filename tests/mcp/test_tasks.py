"""Tasks (SEP-2663) on the MCP core: a task-supporting tool's 2026-07-28 call answered at
once with a task, then tasks/get, tasks/update and tasks/cancel, each error, and the
guarantees a direct call has (rules first, redaction, outputSchema)."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.modern import CAPABILITIES_KEY, modern_meta
from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.mcp import McpServer
from toolhost.mcp.tasks import TASKS_EXTENSION
from toolhost.results import ToolResult

from .mcp_testtools import make_tool

pytestmark = pytest.mark.anyio

TASKS = {"extensions": {TASKS_EXTENSION: {}}}
GATE = anyio.Event


def request(method: str, params: dict[str, Any] | None = None, *, tasks: bool = True,
            id: int = 1, **caps: Any) -> dict[str, Any]:
    meta = modern_meta(**caps)
    if tasks:
        meta[CAPABILITIES_KEY]["extensions"] = {TASKS_EXTENSION: {}}
    return {"jsonrpc": "2.0", "id": id, "method": method,
            "params": {**(params or {}), "_meta": meta}}


async def answer(server: McpServer, method: str, params: dict[str, Any] | None = None,
                 **kw: Any) -> dict[str, Any]:
    out = await server.handle(request(method, params, **kw))
    assert out is not None
    return out


async def result(server: McpServer, method: str, params: dict[str, Any] | None = None,
                 **kw: Any) -> dict[str, Any]:
    out = await answer(server, method, params, **kw)
    assert "result" in out, out
    return out["result"]  # type: ignore[no-any-return]


async def error(server: McpServer, method: str, params: dict[str, Any] | None = None,
                **kw: Any) -> dict[str, Any]:
    out = await answer(server, method, params, **kw)
    assert "error" in out, out
    return out["error"]  # type: ignore[no-any-return]


async def settle(server: McpServer, task_id: str, *, want: str | None = None,
                 **kw: Any) -> dict[str, Any]:
    """tasks/get until the task is terminal (or ``want``): polled, never timed."""
    for _ in range(2000):
        got = await result(server, "tasks/get", {"taskId": task_id}, **kw)
        if got["status"] in ("completed", "failed", "cancelled") or got["status"] == want:
            return got
        await anyio.sleep(0.005)
    raise AssertionError(f"task {task_id} never settled: {got}")


class Tools:
    """Tools whose progress the test controls."""

    def __init__(self) -> None:
        self.release = anyio.Event()
        self.started = anyio.Event()
        self.stopped = False

    async def waits(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        self.started.set()
        try:
            await self.release.wait()
        except BaseException:
            self.stopped = True
            raise
        return ToolResult.text(f"done {arguments.get('name')}")

    async def asks(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        answers: list[Any] = []

        async def ask(text: str, key: str | None) -> None:
            answers.append((await ctx.elicit(text, form, key=key)).content)

        async with anyio.create_task_group() as group:
            group.start_soon(ask, "first?", "first")
            group.start_soon(ask, "second?", None)
        return ToolResult.text(f"answers {sorted(str(a) for a in answers)}")


def server_of(tools: Tools, **extra: Any) -> McpServer:
    return McpServer("demo", "1", [
        make_tool("waits", tools.waits, task_support="optional"),
        make_tool("must", tools.waits, task_support="required"),
        make_tool("asks", tools.asks, task_support="optional", schema={"type": "object"}),
        make_tool("plain", tools.waits),
    ], **extra)


async def test_discover_and_list_advertise_tasks_only_with_a_task_tool() -> None:
    server = server_of(Tools())
    caps = (await result(server, "server/discover"))["capabilities"]
    assert caps["extensions"] == {TASKS_EXTENSION: {}} and "tasks" not in caps
    listed = {t["name"]: t for t in (await result(server, "tools/list"))["tools"]}
    assert listed["waits"]["execution"] == {"taskSupport": "optional"}
    assert listed["must"]["execution"] == {"taskSupport": "required"}
    assert "execution" not in listed["plain"]
    plain = McpServer("demo", "1", [make_tool()])
    assert "extensions" not in (await result(plain, "server/discover"))["capabilities"]


async def test_a_task_runs_after_the_answer_and_its_result_is_inlined() -> None:
    tools = Tools()
    server = server_of(tools)
    created = await result(server, "tools/call", {"name": "waits", "arguments": {"name": "a"}})
    assert created["resultType"] == "task" and "content" not in created
    assert {"taskId", "status", "createdAt", "lastUpdatedAt", "ttlMs",
            "pollIntervalMs"} <= created.keys()
    assert created["status"] == "working" and isinstance(created["ttlMs"], int)
    assert created["createdAt"].endswith("Z") and "task" not in created
    task_id = created["taskId"]
    # durable at once: tasks/get finds it before the tool even started
    working = await result(server, "tasks/get", {"taskId": task_id})
    assert working["status"] == "working" and "result" not in working
    assert working["resultType"] == "complete" and "requestState" not in working
    await tools.started.wait()
    tools.release.set()
    done = await settle(server, task_id)
    assert done["status"] == "completed"
    assert done["result"]["content"] == [{"type": "text", "text": "done a"}]
    assert "io.modelcontextprotocol/related-task" not in done["result"].get("_meta", {})
    # cancelling a terminal task is the same empty ack, and changes nothing
    ack = await result(server, "tasks/cancel", {"taskId": task_id})
    assert set(ack) <= {"resultType", "_meta"} and ack["resultType"] == "complete"
    assert (await result(server, "tasks/get", {"taskId": task_id}))["status"] == "completed"


async def test_without_the_extension_a_call_runs_directly_or_is_refused() -> None:
    tools = Tools()
    tools.release.set()
    server = server_of(tools)
    direct = await result(server, "tools/call", {"name": "waits", "arguments": {"name": "b"}},
                          tasks=False)
    assert direct["resultType"] == "complete" and "taskId" not in direct
    assert direct["content"] == [{"type": "text", "text": "done b"}]
    refused = await error(server, "tools/call", {"name": "must", "arguments": {"name": "b"}},
                          tasks=False)
    assert refused["code"] == -32021
    assert refused["data"] == {"requiredCapabilities": {"extensions": {TASKS_EXTENSION: {}}}}
    # a tool without task support never becomes a task, whatever the client declares or
    # sends (the v1 `task` param is ignored)
    sync = await result(server, "tools/call", {"name": "plain", "arguments": {"name": "c"},
                                               "task": {"ttl": 60000}})
    assert sync["resultType"] == "complete" and "taskId" not in sync
    # the 2025 revisions: a plain call, as before
    legacy = await server.handle({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                                  "params": {"name": "must", "arguments": {"name": "d"}}})
    assert legacy is not None and legacy["result"]["content"][0]["text"] == "done d"


@pytest.mark.parametrize("method", ["tasks/get", "tasks/update", "tasks/cancel"])
async def test_each_task_method_and_its_errors(method: str) -> None:
    server = server_of(Tools())
    params = {"taskId": "nope", "inputResponses": {}}
    assert (await error(server, method, params, tasks=False))["code"] == -32021
    assert (await error(server, method, params))["code"] == -32602
    assert (await error(server, method, {"taskId": 7, "inputResponses": {}}))["code"] == -32602
    legacy = await server.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                                  "params": params})
    assert legacy is not None and legacy["error"]["code"] == -32601


@pytest.mark.parametrize("method", ["tasks/result", "tasks/list"])
async def test_the_v1_methods_are_gone(method: str) -> None:
    server = server_of(Tools())
    assert (await error(server, method, {"taskId": "x"}))["code"] == -32601


async def test_cancel_stops_the_tool() -> None:
    tools = Tools()
    server = server_of(tools)
    task_id = (await result(server, "tools/call", {"name": "waits",
                                                   "arguments": {"name": "x"}}))["taskId"]
    await tools.started.wait()
    ack = await result(server, "tasks/cancel", {"taskId": task_id})
    assert set(ack) <= {"resultType", "_meta"}
    assert (await settle(server, task_id))["status"] == "cancelled"
    for _ in range(1000):
        if tools.stopped:
            break
        await anyio.sleep(0.005)
    assert tools.stopped


async def test_questions_wait_in_input_requests_and_tasks_update_answers_them() -> None:
    server = server_of(Tools())
    task_id = (await result(server, "tools/call", {"name": "asks", "arguments": {}},
                            elicitation={}))["taskId"]
    got: dict[str, Any] = {}
    for _ in range(2000):
        got = await result(server, "tasks/get", {"taskId": task_id}, elicitation={})
        if len(got.get("inputRequests", {})) == 2:
            break
        await anyio.sleep(0.005)
    assert got["status"] == "input_required"
    assert set(got["inputRequests"]) == {"first", "toolhost-2"}
    assert got["inputRequests"]["first"]["method"] == "elicitation/create"
    # one answer (and one nobody asked for): still waiting for the other
    ack = await result(server, "tasks/update", {"taskId": task_id, "inputResponses": {
        "first": {"action": "accept", "content": {"ok": True}}, "unknown": {"x": 1}}},
        elicitation={})
    assert set(ack) <= {"resultType", "_meta"}
    partial = await result(server, "tasks/get", {"taskId": task_id}, elicitation={})
    assert partial["status"] == "input_required"
    assert set(partial["inputRequests"]) == {"toolhost-2"}
    await result(server, "tasks/update", {"taskId": task_id, "inputResponses": {
        "toolhost-2": {"action": "accept", "content": {"ok": False}}}}, elicitation={})
    done = await settle(server, task_id, elicitation={})
    assert done["status"] == "completed", done
    assert done["result"]["content"][0]["text"] == \
        "answers [\"{'ok': False}\", \"{'ok': True}\"]"
    bad = await error(server, "tasks/update", {"taskId": task_id, "inputResponses": [1]},
                      elicitation={})
    assert bad["code"] == -32602


async def test_a_task_asking_for_an_undeclared_capability_fails_with_minus_32021() -> None:
    server = server_of(Tools())
    task_id = (await result(server, "tools/call", {"name": "asks", "arguments": {}}))["taskId"]
    done = await settle(server, task_id)
    assert done["status"] == "failed" and "result" not in done
    assert done["error"]["code"] == -32021
    assert done["error"]["data"] == {"requiredCapabilities": {"elicitation": {}}}


async def test_the_rules_run_before_the_task_starts() -> None:
    tools = Tools()
    seen: list[str] = []

    async def guard(tool: CompiledTool, arguments: Mapping[str, Any],
                    ctx: CallContext) -> ToolResult | None:
        seen.append(tool.name)
        return ToolResult.error("denied by a rule") if arguments.get("name") == "no" else None

    server = server_of(tools, guard=guard)
    denied = await result(server, "tools/call", {"name": "waits", "arguments": {"name": "no"}})
    assert denied["resultType"] == "complete" and denied["isError"] is True
    assert not tools.started.is_set() and seen == ["waits"] and len(server.tasks) == 0

    async def broken(tool: CompiledTool, arguments: Mapping[str, Any],
                     ctx: CallContext) -> ToolResult | None:
        raise RuntimeError("boom")

    server = server_of(tools, guard=broken)
    failed = await result(server, "tools/call", {"name": "waits", "arguments": {"name": "y"}})
    assert failed["isError"] is True and len(server.tasks) == 0


async def test_a_task_is_its_callers_only() -> None:
    from toolhost.permissions.callers.identity import Caller, as_caller

    tools = Tools()
    server = server_of(tools)
    with as_caller(Caller("alice")):
        task_id = (await result(server, "tools/call", {"name": "waits",
                                                       "arguments": {"name": "z"}}))["taskId"]
    with as_caller(Caller("mallory")):
        for method in ("tasks/get", "tasks/cancel", "tasks/update"):
            out = await error(server, method, {"taskId": task_id, "inputResponses": {}})
            assert out["code"] == -32602
    with as_caller(Caller("alice")):
        assert (await result(server, "tasks/get", {"taskId": task_id}))["status"] == "working"
        await result(server, "tasks/cancel", {"taskId": task_id})


async def test_tasks_are_bounded() -> None:
    tools = Tools()
    server = server_of(tools)
    server.tasks.max_tasks = 3
    ids = [(await result(server, "tools/call", {"name": "waits", "arguments": {"name": "n"}}))
           ["taskId"] for _ in range(3)]
    busy = await error(server, "tools/call", {"name": "waits", "arguments": {"name": "n"}})
    assert busy["code"] == -32000 and "3 tasks" in busy["message"]
    await result(server, "tasks/cancel", {"taskId": ids[0]})  # a terminal one makes room
    await result(server, "tools/call", {"name": "waits", "arguments": {"name": "n"}})
    server.tasks.close()
    # and per caller: one caller's running tasks cannot take every slot
    from toolhost.permissions.callers.identity import Caller, as_caller

    server = server_of(tools)
    server.tasks.max_running = 2
    with as_caller(Caller("greedy")):
        for _ in range(2):
            await result(server, "tools/call", {"name": "waits", "arguments": {"name": "g"}})
        busy = await error(server, "tools/call", {"name": "waits", "arguments": {"name": "g"}})
        assert busy["code"] == -32000 and "per caller" in busy["message"]
    with as_caller(Caller("other")):
        await result(server, "tools/call", {"name": "waits", "arguments": {"name": "o"}})
    server.tasks.close()


async def test_a_cancelled_task_whose_tool_runs_on_still_holds_its_callers_slot() -> None:
    # cancel answers at once (status cancelled) but a tool that does not stop at once (it
    # unwinds, or a thread that cannot be stopped) still runs: cancel-and-call again must not
    # run more than the per-caller bound at once
    release, running = anyio.Event(), [0]

    async def stubborn(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        running[0] += 1
        try:
            while not release.is_set():
                try:  # a tool that does not stop when asked: it ends when it ends
                    await release.wait()
                except BaseException:
                    continue
        finally:
            running[0] -= 1
        return ToolResult.text("late")

    server = McpServer("demo", "1", [make_tool("slow", stubborn, task_support="optional")])
    CALL = {"name": "slow", "arguments": {"name": "x"}}
    server.tasks.max_running = 2
    for n in (1, 2):
        task_id = (await result(server, "tools/call", CALL))["taskId"]
        for _ in range(2000):
            if running[0] == n:  # the tool is running
                break
            await anyio.sleep(0.005)
        await result(server, "tasks/cancel", {"taskId": task_id})
        assert (await settle(server, task_id))["status"] == "cancelled"
    try:
        busy = await error(server, "tools/call", CALL)
        assert busy["code"] == -32000 and "per caller" in busy["message"]
        assert running[0] == 2
    finally:
        release.set()
    for _ in range(1000):
        if not running[0]:
            break
        await anyio.sleep(0.005)
    await anyio.sleep(0)  # the tasks' own ends
    assert (await result(server, "tools/call", CALL))["resultType"] == "task"
    server.tasks.close()


async def test_a_task_result_keeps_redaction_and_output_schema(tmp_path: Path) -> None:
    config = """toolhost: 1
servers:
  kb:
    env: {TASK_API_TOKEN: "${TASK_API_TOKEN}"}
    tools:
      leak: {python: "tasktools:leak", task_support: optional}
      shaped:
        python: "tasktools:shaped"
        task_support: optional
        output_schema: {type: object, properties: {n: {type: integer}}, required: [n]}
"""
    source = ("def leak() -> str:\n    return 'the secret is s3cr3tValue99'\n"
              "def shaped() -> dict:\n    return {'n': 'not a number'}\n")
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    (tmp_path / "tasktools.py").write_text(source)
    (tmp_path / "kb.yaml").write_text(config)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TASK_API_TOKEN", "s3cr3tValue99")
        try:
            compiled = compile_tools(load_config(tmp_path / "kb.yaml", layers=False))
        finally:
            sys.modules.pop("tasktools", None)
    server = McpServer("kb", "1", compiled.servers["kb"])
    for name, check in (("leak", lambda r: "s3cr3tValue99" not in str(r) and "***" in str(r)),
                        ("shaped", lambda r: r.get("isError") is True)):
        task_id = (await result(server, "tools/call", {"name": name, "arguments": {}}))["taskId"]
        done = await settle(server, task_id)
        assert done["status"] == "completed" and check(done["result"]), done


async def test_a_task_past_its_ttl_is_stopped_and_forgotten_without_a_request() -> None:
    # the ttl was swept only when a request came (tools/call, tasks/*): a server nobody asked
    # again ran an expired task's tool, and held its result, for ever
    tools = Tools()
    server = server_of(tools)
    server.tasks.ttl_ms = 0
    created = await result(server, "tools/call", {"name": "waits", "arguments": {"name": "n"}})
    assert created["ttlMs"] == 0
    for _ in range(200):  # loop turns, no request: the task's own timer ends it
        if tools.stopped and len(server.tasks) == 0:
            break
        await anyio.sleep(0)
    assert tools.stopped and len(server.tasks) == 0


async def test_shutdown_waits_for_the_tools_of_running_tasks_to_stop() -> None:
    # close() cancelled the tasks and returned: a tool's cleanup (a command's process to end,
    # a file to close) ran later, if at all, while the server went away
    cleaned: list[str] = []

    async def tidy(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        try:
            await anyio.sleep_forever()
        finally:
            with anyio.CancelScope(shield=True):
                for _ in range(5):  # cleanup that takes a few turns of the loop
                    await anyio.sleep(0)
                cleaned.append(str(arguments.get("name")))
        return ToolResult.text("never")

    server = McpServer("demo", "1", [make_tool("tidy", tidy, task_support="optional")])
    for name in ("a", "b"):
        await result(server, "tools/call", {"name": "tidy", "arguments": {"name": name}})
    await anyio.sleep(0)  # the tools started
    await server.tasks.aclose()
    assert sorted(cleaned) == ["a", "b"]


async def test_a_caller_starting_many_tasks_drops_its_own_results_not_anothers() -> None:
    # when the store was full, the oldest terminal tasks of anybody made room: one caller
    # calling again and again dropped another caller's results long before their ttl
    from toolhost.permissions.callers.identity import Caller, as_caller

    tools = Tools()
    tools.release.set()  # every call completes at once
    server = server_of(tools)
    server.tasks.max_tasks = 4
    with as_caller(Caller("patient")):
        kept = (await result(server, "tools/call", {"name": "waits",
                                                    "arguments": {"name": "p"}}))["taskId"]
        assert (await settle(server, kept))["status"] == "completed"
    with as_caller(Caller("busy")):
        for _ in range(12):
            done = (await result(server, "tools/call", {"name": "waits",
                                                        "arguments": {"name": "b"}}))["taskId"]
            await settle(server, done)
    with as_caller(Caller("patient")):
        got = await settle(server, kept)
    assert got["status"] == "completed" and got["result"]["content"] == [
        {"type": "text", "text": "done p"}]
    # a read never drops anything: only a new task makes room
    assert len(server.tasks) == 4


async def _started(server: McpServer) -> str:
    """A task of the ``waits`` tool, by id."""
    made = await result(server, "tools/call", {"name": "waits", "arguments": {"name": "x"}})
    return str(made["taskId"])


async def test_a_shutdown_waits_for_running_tasks_and_unread_results_only() -> None:
    """``pending``: a running task, and a result nobody read, hold a graceful shutdown; a
    read (tasks/get of the ended task, tasks/cancel) or a result older than the unread
    window does not. ``stop_for_shutdown`` fails what still runs, saying why."""
    from toolhost.mcp import tasks as tasks_module

    tools = Tools()
    server = server_of(tools)
    store = server.tasks
    first = await _started(server)
    second = await _started(server)
    cancelled = await _started(server)
    await result(server, "tasks/cancel", {"taskId": cancelled})
    assert store.pending() == 2 and store.keeps(first) and not store.keeps("nope")
    assert (await result(server, "tasks/get", {"taskId": first}))["status"] == "working"
    assert store.pending() == 2  # read while working: its result is still to come
    tools.release.set()
    for _ in range(2000):
        if store._tasks[first].status == "completed":
            break
        await anyio.sleep(0.005)
    assert store.pending() == 2  # ended, unread
    await settle(server, first)
    assert store.pending() == 1  # read
    store._tasks[second].updated -= tasks_module.UNREAD_WINDOW + 1
    assert store.pending() == 0  # left unread longer than the window: not waited for
    gate = Tools()
    busy = server_of(gate)
    running = await _started(busy)
    await gate.started.wait()
    assert busy.tasks.stop_for_shutdown("Server shutting down: because") == 1
    failed = await settle(busy, running)
    assert failed["status"] == "failed"
    assert failed["error"] == {"code": -32000, "message": "Server shutting down: because"}
    assert busy.tasks.pending() == 0 and busy.tasks.stop_for_shutdown("again") == 0
