"""A read's requests served one by one in one task (``toolhost.protocol.read_batch``), each as
if in a task of its own: its own copy of the context, the order read, cancellation by id,
futures, cancels and exceptions exactly as a task would see them, and never held up by one
that waits (the ones behind it get tasks of their own)."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest

from toolhost.protocol.framing import LineWriter
from toolhost.protocol.tasks import RequestTasks

from .session_harness import os_pipe_writer, running_session
from .test_session_same_read import call

pytestmark = pytest.mark.anyio

VAR: contextvars.ContextVar[str] = contextvars.ContextVar("VAR", default="unset")
LEAK: contextvars.ContextVar[str] = contextvars.ContextVar("LEAK", default="clean")

Serve = Callable[[str, Any], Awaitable[None]]


async def _read_together(tasks: RequestTasks, serve: Serve, requests: list[tuple[str, Any]],
                         *, cancel: tuple[str, ...] = ()) -> None:
    """Spawn ``requests`` as ``PipeLines.data_received`` does for the lines of one read (in a
    plain callback of the loop, each with a line behind it but the last, none eager), with
    ``VAR`` set to each request's id in the callback's context as it is spawned."""
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def callback() -> None:
        for request_id, request in requests:
            VAR.set(request_id)
            tasks.spawn(request_id, serve, request)
        for request_id in cancel:
            tasks.cancel(request_id)
        done.set_result(None)

    loop.call_soon(callback, context=contextvars.copy_context())
    await done


def _spawn_all(tasks: RequestTasks, serve: Serve, count: int) -> None:
    for i in range(count):
        tasks.spawn(f"r{i}", serve, None)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_quick_requests_read_together_share_one_task_in_the_order_read() -> None:
    # the point of the batch: 32 quick requests, one task (each had a task of its own before)
    tasks = RequestTasks()
    ran: list[tuple[str, asyncio.Task[Any] | None]] = []

    async def serve(request_id: str, request: Any) -> None:
        ran.append((request_id, asyncio.current_task()))

    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        await _read_together(tasks, serve, [(f"r{i}", None) for i in range(32)])
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert [request_id for request_id, _ in ran] == [f"r{i}" for i in range(32)]
    assert len({id(task) for _, task in ran}) == 1
    assert tasks.scopes == {} and tasks.queued == 0 and tasks.queued_ever == 32


async def test_each_request_runs_in_its_own_copy_of_the_context() -> None:
    tasks = RequestTasks()
    seen: dict[str, tuple[str, str, str]] = {}

    async def serve(request_id: str, request: Any) -> None:
        before = LEAK.get()
        LEAK.set(f"set by {request_id}")  # never reset: must not reach the next request
        if request == "wait":
            await anyio.sleep(0.01)
        seen[request_id] = (VAR.get(), before, LEAK.get())

    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        await _read_together(tasks, serve, [("a", None), ("b", "wait"), ("c", None),
                                            ("d", None)])
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert seen == {rid: (rid, "clean", f"set by {rid}") for rid in "abcd"}
    assert LEAK.get() == "clean"


async def test_a_request_that_waits_lets_the_ones_behind_it_begin_in_order() -> None:
    tasks = RequestTasks()
    events: list[str] = []
    release = anyio.Event()
    task_of: dict[str, asyncio.Task[Any] | None] = {}

    async def serve(request_id: str, request: Any) -> None:
        events.append(f"{request_id} begins")
        task_of[request_id] = asyncio.current_task()
        if request == "wait":
            await release.wait()
        events.append(f"{request_id} ends")

    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        await _read_together(tasks, serve, [("a", None), ("b", "wait"), ("c", None),
                                            ("d", "wait"), ("e", None)])
        with anyio.fail_after(5):
            while "e ends" not in events:
                await anyio.sleep(0.001)
        assert events == ["a begins", "a ends", "b begins", "c begins", "c ends",
                          "d begins", "e begins", "e ends"]
        assert task_of["a"] is task_of["b"] and task_of["c"] is not task_of["b"]
        release.set()
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert sorted(events[-2:]) == ["b ends", "d ends"]
    assert tasks.scopes == {} and tasks.queued == 0


async def test_a_withdrawn_request_in_a_batch_never_begins_and_the_rest_are_served() -> None:
    tasks = RequestTasks()
    ran: list[str] = []

    async def serve(request_id: str, request: Any) -> None:
        ran.append(request_id)

    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        await _read_together(tasks, serve, [("a", None), ("b", None), ("c", None)],
                             cancel=("b",))
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert ran == ["a", "c"] and tasks.scopes == {} and tasks.queued == 0


async def test_a_waiting_request_is_cancelled_by_its_id_and_the_next_batch_is_unharmed(
        ) -> None:
    tasks = RequestTasks()
    events: list[str] = []

    async def serve(request_id: str, request: Any) -> None:
        try:
            if request == "wait":
                events.append(f"{request_id} waits")
                await anyio.sleep(30)
            elif request == "cancelling":
                # a later request of a batch must not run in a task left cancelling
                task = asyncio.current_task()
                assert task is not None
                events.append(f"{request_id} cancelling={task.cancelling()}")
                await anyio.sleep(0)
        except anyio.get_cancelled_exc_class():
            events.append(f"{request_id} cancelled")
            raise
        events.append(f"{request_id} ends")

    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        await _read_together(tasks, serve, [("a", None), ("b", "wait"), ("c", None)])
        with anyio.fail_after(5):
            while "c ends" not in events:
                await anyio.sleep(0.001)
        assert tasks.cancel("b")
        with anyio.fail_after(5):
            await tasks.wait_all()
        await _read_together(tasks, serve, [("d", None), ("e", "cancelling")])
        with anyio.fail_after(5):
            await tasks.wait_all()
    assert events == ["a ends", "b waits", "c ends", "b cancelled", "d ends",
                      "e cancelling=0", "e ends"]
    assert tasks.scopes == {}


async def test_a_request_that_cancels_its_own_task_does_not_cancel_the_next_one() -> None:
    tasks = RequestTasks()
    events: list[str] = []

    async def serve(request_id: str, request: Any) -> None:
        task = asyncio.current_task()
        assert task is not None
        if request == "self-cancel":
            task.cancel()  # and returns at once: the cancel lands nowhere in this request
            events.append(f"{request_id} asked")
            return
        events.append(f"{request_id} cancelling={task.cancelling()}")
        await asyncio.sleep(0)  # a cancel left over from before would land here
        events.append(f"{request_id} ends")

    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        await _read_together(tasks, serve, [("a", "self-cancel"), ("b", None), ("c", None)])
        with anyio.fail_after(5):
            await tasks.wait_all()
    # (b and c in tasks of their own, as each was before: they take turns)
    assert events == ["a asked", "b cancelling=0", "c cancelling=0", "b ends", "c ends"]


async def test_a_request_that_raises_is_logged_and_the_next_one_is_served(
        caplog: pytest.LogCaptureFixture) -> None:
    tasks = RequestTasks()
    ran: list[str] = []

    async def serve(request_id: str, request: Any) -> None:
        ran.append(request_id)
        if request == "boom":
            raise RuntimeError("boom")

    with caplog.at_level(logging.ERROR, logger="toolhost.protocol"):
        async with anyio.create_task_group() as tg:
            tasks.bind(tg)
            await _read_together(tasks, serve, [("a", "boom"), ("b", None)])
            with anyio.fail_after(5):
                await tasks.wait_all()
    assert ran == ["a", "b"]
    assert "control request a crashed" in caplog.text and "RuntimeError: boom" in caplog.text


async def _scenario(log: list[str], futures: dict[str, asyncio.Future[Any]],
                    cancel_me: Callable[[], object]) -> None:
    """What a request that waits may meet; recorded the same whether it runs in a task of
    its own or is driven by a batch's task."""
    loop = asyncio.get_running_loop()
    VAR.set("inside")
    for _ in range(3):
        await asyncio.sleep(0)  # bare yields
    log.append(f"var {VAR.get()}")
    futures["value"] = loop.create_future()
    loop.call_soon(futures["value"].set_result, 5)
    log.append(f"value {await futures['value']}")
    futures["error"] = loop.create_future()
    error = KeyError("k")
    loop.call_soon(futures["error"].set_exception, error)
    try:
        await futures["error"]
    except KeyError as exc:
        log.append(f"error same={exc is error}")
    futures["cancelled"] = loop.create_future()
    loop.call_soon(futures["cancelled"].cancel)
    try:
        await futures["cancelled"]
    except asyncio.CancelledError:
        log.append("future cancelled")
    # a cancel of the task landing when the awaited future is done already: thrown in
    futures["late"] = loop.create_future()

    def late() -> None:
        futures["late"].set_result("late value")
        cancel_me()
    loop.call_soon(late)
    try:
        log.append(f"late {await futures['late']}")
    except asyncio.CancelledError:
        task = asyncio.current_task()
        assert task is not None
        log.append(f"late cancel thrown in, uncancel={task.uncancel()}")
    try:
        with anyio.fail_after(0.01):
            await anyio.sleep(10)
    except TimeoutError:
        log.append("timed out")
    with anyio.CancelScope() as scope:
        loop.call_soon(scope.cancel)
        with anyio.CancelScope(shield=True):
            await anyio.sleep(0.01)
            log.append("shielded sleep whole")
        await anyio.sleep(10)
    log.append(f"scope cancelled_caught={scope.cancelled_caught}")
    log.append(f"var {VAR.get()}")


async def test_a_driven_request_meets_futures_cancels_and_scopes_as_a_task_would() -> None:
    async def in_a_task() -> list[str]:
        log: list[str] = []
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(
            _scenario(log, {}, lambda: task.cancel()))
        with anyio.fail_after(5):
            await task
        return log

    async def driven() -> list[str]:
        log: list[str] = []
        tasks = RequestTasks()
        batch_task: list[asyncio.Task[Any]] = []

        async def serve(request_id: str, request: Any) -> None:
            if request == "scenario":
                task = asyncio.current_task()
                assert task is not None
                batch_task.append(task)
                await _scenario(log, {}, lambda: batch_task[0].cancel())

        async with anyio.create_task_group() as tg:
            tasks.bind(tg)
            await _read_together(tasks, serve, [("a", None), ("b", "scenario"),
                                                ("c", None)])
            with anyio.fail_after(5):
                await tasks.wait_all()
        return log

    expected = await in_a_task()
    assert expected == ["var inside", "value 5", "error same=True", "future cancelled",
                        "late cancel thrown in, uncancel=0", "timed out",
                        "shielded sleep whole", "scope cancelled_caught=True", "var inside"]
    assert await driven() == expected
    assert VAR.get() == "unset"


async def test_a_batchs_answers_leave_in_one_write_after_the_first() -> None:
    # one task serves the read's requests; the loop's ready queue still shows that more
    # answers follow (the batch leaves a sign in it), so the writer still joins them
    read_fd, sender = await os_pipe_writer()
    writer = LineWriter(sender)
    direct = writer._direct
    assert direct is not None
    writes: list[bytes] = []
    write = direct.write

    def counted(data: Any) -> None:
        writes.append(bytes(data))
        write(data)
    direct.write = counted  # type: ignore[method-assign]
    tasks = RequestTasks()

    async def serve(request_id: str, request: Any) -> None:
        await writer.send_bytes(f"{request_id}\n".encode())

    try:
        async with anyio.create_task_group() as tg:
            tasks.bind(tg)
            # (no future resolved behind the spawns: the batch's task is alone in its turn)
            asyncio.get_running_loop().call_soon(_spawn_all, tasks, serve, 32)
            await asyncio.sleep(0)
            with anyio.fail_after(5):
                await tasks.wait_all()
                while writer._writing:
                    await anyio.sleep(0)
        assert writes == [b"r0\n", b"".join(f"r{i}\n".encode() for i in range(1, 32))]
    finally:
        os.close(read_fd)
        await sender.aclose()


async def test_sync_calls_read_together_do_not_hold_the_loop_one_by_one(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the sync pool yields the loop to a call only when nothing else is due; a batch's
    # requests are due, so each call is handed to the pool and awaited, as from tasks of
    # their own (one that yielded would run the read's calls one at a time)
    from toolhost.backends import threads

    yielded: list[object] = []
    real = threads._yield_until_done

    def counted(job: Any) -> None:
        yielded.append(job)
        real(job)
    monkeypatch.setattr(threads, "_yield_until_done", counted)
    pool = threads.SyncPool()
    tasks = RequestTasks()
    answers: list[str] = []

    async def serve(request_id: str, request: Any) -> None:
        answers.append(await pool.run(lambda: request_id, tool="t"))

    async with anyio.create_task_group() as tg:
        for _ in range(8):  # the pool's threads made first (a new thread is slow to start)
            tg.start_soon(functools.partial(pool.run, lambda: None, tool="t"))
    del yielded[:]
    async with anyio.create_task_group() as tg:
        tasks.bind(tg)
        asyncio.get_running_loop().call_soon(_spawn_all, tasks, serve, 8)
        await asyncio.sleep(0)
        with anyio.fail_after(10):
            await tasks.wait_all()
    assert sorted(answers) == sorted(f"r{i}" for i in range(8))
    assert len(yielded) <= 1  # at most the last call of a turn, as from tasks of their own


async def test_a_read_of_quick_calls_is_answered_once_each_in_order(_transport: str) -> None:
    async with running_session() as (_, cli):
        await cli.send_raw(b"".join(call(f"c{i}", i, f"n{i}") for i in range(32)))
        await cli.wait_for(lambda: all(f"c{i}" in cli.answers() for i in range(32)))
    order = [line["response"]["request_id"] for line in cli.lines
             if line.get("type") == "control_response"]
    assert order == [f"c{i}" for i in range(32)]
