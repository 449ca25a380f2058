"""RequestTasks: the scopes it makes are real anyio cancel scopes of the running backend."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from toolhost.protocol.tasks import RequestTasks


@pytest.mark.anyio
async def test_a_request_cancelled_by_id_stops_and_others_finish() -> None:
    tasks = RequestTasks()
    finished: list[str] = []
    started = anyio.Event()

    async def serve(request_id: str, request: Any) -> None:
        if request == "slow":
            started.set()
            await anyio.sleep(30)
        finished.append(request_id)

    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        assert isinstance(tasks.new_scope(), anyio.CancelScope)
        tasks.spawn("a", serve, "slow")
        tasks.spawn("b", serve, "quick")
        await started.wait()
        assert tasks.cancel("a") and not tasks.cancel("nope")
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert finished == ["b"] and tasks.scopes == {}
