"""RequestTasks: the scopes it makes are real anyio cancel scopes of the running backend."""

from __future__ import annotations

from typing import Any

import anyio
import anyio.lowlevel
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


async def _from_a_loop_callback(tasks: RequestTasks, *spawn: tuple[str, Any, bool]
                                ) -> list[str]:
    """Spawn as ``PipeLines.data_received`` does: in a plain callback of the loop, outside
    any task. Returns what had run by the time the callback returned."""
    import asyncio

    seen: list[str] = []
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def callback() -> None:
        for request_id, request, eager in spawn:
            tasks.spawn(request_id, serve_into(seen), request, eager=eager)
        done.set_result(list(seen))

    loop.call_soon(callback)
    return await done  # type: ignore[no-any-return]


def serve_into(seen: list[str]) -> Any:
    async def serve(request_id: str, request: Any) -> None:
        import asyncio

        assert asyncio.current_task() is not None  # a task of its own, even when eager
        seen.append(f"{request_id} started")
        if request == "slow":
            await anyio.sleep(30)
        seen.append(f"{request_id} done")
    return serve


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_an_eager_request_with_nothing_behind_it_is_served_before_spawn_returns(
        ) -> None:
    # A quick request's answer leaves in the turn of the loop its line arrived in (on
    # Python 3.10-3.11 too, where asyncio has no eager tasks); a lazy one waits a turn, and
    # one spawned eagerly behind it waits with it (never before it: R24-6, two questions
    # asked last-first); it stays cancellable by its id.
    tasks = RequestTasks()
    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        seen = await _from_a_loop_callback(tasks, ("a", "quick", True), ("b", "quick", False),
                                           ("c", "slow", True))
        assert seen == ["a started", "a done"]  # c did not begin before b
        while tasks.queued:
            await anyio.lowlevel.checkpoint()
        assert "c" in tasks.scopes
        assert tasks.cancel("c")
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert tasks.scopes == {}


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_an_eager_spawn_from_inside_a_task_still_serves_the_request() -> None:
    tasks = RequestTasks()
    seen: list[str] = []
    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        tasks.spawn("a", serve_into(seen), "quick", eager=True)
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert seen == ["a started", "a done"]
