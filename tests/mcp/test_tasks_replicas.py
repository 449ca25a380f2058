"""Tasks under several replicas and a graceful shutdown (toolhost/mcp/tasks.py): a task id
names the process that keeps it, so another replica asked about it says where the task
lives (before: "unknown task", which a client reads as lost, and may call the tool again
while it still runs); and an unread result holds a shutdown only while its poller is
expected back (before: up to the whole grace, though the balancer had sent the poller to
another replica once ``/readyz`` said 503)."""

from __future__ import annotations

import re
import time

import pytest

from tests.mcp.test_tasks import Tools, _started, error, server_of, settle
from toolhost.mcp.tasks import PATIENCE_MIN, UNREAD_WINDOW
from toolhost.permissions.callers.identity import Caller, as_caller

pytestmark = pytest.mark.anyio


async def test_another_replica_names_the_one_keeping_the_task() -> None:
    first, second = server_of(Tools()), server_of(Tools())
    with as_caller(Caller("alice")):
        task_id = await _started(first)
        assert re.fullmatch(r"[0-9a-f]{8}\.[A-Za-z0-9_-]{22}", task_id), task_id
        assert (await _started(first)).split(".")[0] == task_id.split(".")[0]
        tag = task_id.split(".")[0]
        for method in ("tasks/get", "tasks/cancel", "tasks/update"):
            out = await error(second, method, {"taskId": task_id, "inputResponses": {}})
            assert out["code"] == -32602, out
            assert f"replica '{tag}' started it" in out["message"], out
            assert "unknown" not in out["message"]
        # ids no replica made, or this replica's own that it does not keep: unknown
        for other in ("nope", f"{tag}.gone", "zzzzzzzz.x", f"{tag}.", "ABCDEF12.x"):
            out = await error(first, "tasks/get", {"taskId": other})
            assert "unknown task" in out["message"], (other, out)
    # another caller, on the replica that keeps it: unknown (its existence is not told)
    with as_caller(Caller("mallory")):
        out = await error(first, "tasks/get", {"taskId": task_id})
        assert "unknown task" in out["message"] and "replica" not in out["message"]


async def test_an_unread_result_holds_a_shutdown_only_while_its_poller_is_expected() -> None:
    tools = Tools()
    server = server_of(tools)
    store = server.tasks
    left, polled = await _started(server), await _started(server)
    tools.release.set()
    await settle(server, polled, want="completed")  # read: no longer pending
    assert store.pending() == 1
    task = store._tasks[left]
    assert task.status == "completed" and not task.read
    # never polled: it waits PATIENCE_MIN after the end, not UNREAD_WINDOW
    task.updated -= PATIENCE_MIN + 0.5
    assert store.pending() == 0
    # a poller that paused 15 s between asks is given three of those after its last ask
    other = await _started(server)
    await settle(server, other, want="completed")
    late = store._tasks[other]
    late.read, late.created = False, late.created - 15
    late.asked = None
    late.asked_now()
    assert late.pause >= 15 and store.pending() == 1
    late.asked = late.updated = time.time() - 44
    assert store.pending() == 1  # 44 s away: within 45
    late.asked = late.updated = time.time() - 46
    assert store.pending() == 0
    # however long its pauses, UNREAD_WINDOW at most
    late.pause = 10 * UNREAD_WINDOW
    late.asked = late.updated = time.time() - (UNREAD_WINDOW - 1)
    assert store.pending() == 1
    late.asked = late.updated = time.time() - (UNREAD_WINDOW + 1)
    assert store.pending() == 0
