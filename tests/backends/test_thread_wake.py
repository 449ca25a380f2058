"""LoopWaker (toolhost/backends/thread_wake.py): pool threads hand finished calls back to the
event loop through a pipe of its own, none lost, each delivered on the loop's thread."""

from __future__ import annotations

import asyncio
import gc
import os
import threading
from typing import Any

import pytest

from toolhost.backends.thread_wake import LoopWaker, waker_for
from toolhost.backends.threads import SyncPool


@pytest.mark.parametrize("threads,each", [(1, 1), (1, 300), (8, 250), (32, 20)])
def test_every_item_from_every_thread_is_delivered_once_on_the_loop(threads: int, each: int
                                                                    ) -> None:
    # Bytes are coalesced (one on its way is enough): whatever the interleaving, nothing
    # queued is left behind, and each thread's items arrive in its own order.
    async def main() -> dict[int, list[int]]:
        loop = asyncio.get_running_loop()
        got: dict[int, list[int]] = {}
        loop_thread = threading.get_ident()
        all_in = asyncio.Event()

        def deliver(item: tuple[int, int]) -> None:
            assert threading.get_ident() == loop_thread
            got.setdefault(item[0], []).append(item[1])
            if sum(map(len, got.values())) == threads * each:
                all_in.set()

        waker = LoopWaker(loop, deliver)

        def work(n: int) -> None:
            for i in range(each):
                waker.wake((n, i))

        workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        await asyncio.wait_for(all_in.wait(), 30)
        for worker in workers:
            worker.join()
        await asyncio.sleep(0.01)  # nothing more comes
        return got

    got = asyncio.run(main())
    assert got == {n: list(range(each)) for n in range(threads)}


def test_one_waker_per_loop_and_its_pipe_closes_with_the_loop() -> None:
    fds: list[int] = []

    async def main() -> None:
        loop = asyncio.get_running_loop()
        waker = waker_for(loop, lambda item: None)
        assert waker is not None and waker_for(loop, lambda item: None) is waker
        fds.extend((waker._read, waker._write))

    asyncio.run(main())
    gc.collect()
    for fd in fds:
        with pytest.raises(OSError):
            os.fstat(fd)


class _NoReaders(asyncio.SelectorEventLoop):
    def add_reader(self, fd: Any, callback: Any, *args: Any) -> None:
        raise NotImplementedError


def test_a_loop_that_cannot_watch_a_pipe_gets_none_and_sync_calls_still_work() -> None:
    loop = _NoReaders()
    try:
        assert waker_for(loop, lambda item: None) is None
        pool = SyncPool()
        assert loop.run_until_complete(pool.run(lambda: 42, tool="t")) == 42
    finally:
        loop.close()


class _Counting(asyncio.SelectorEventLoop):
    threadsafe = 0

    def call_soon_threadsafe(self, *args: Any, **kwargs: Any) -> Any:
        self.threadsafe += 1
        return super().call_soon_threadsafe(*args, **kwargs)


def test_a_sync_call_comes_back_through_the_pipe_not_the_loops_self_pipe() -> None:
    # call_soon_threadsafe costs a send, two recvs and a caught BlockingIOError per wake
    loop = _Counting()
    try:
        pool = SyncPool()

        async def calls() -> list[int]:
            return [await pool.run(lambda i=i: i * 2, tool="t") for i in range(20)]

        assert loop.run_until_complete(calls()) == [i * 2 for i in range(20)]
        assert loop.threadsafe == 0
    finally:
        loop.close()


def test_a_wake_that_comes_while_the_loop_reads_is_never_lost(monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    # A thread queues an item just as the loop takes the bytes: that item, and every later
    # one, still reaches the loop (a waker that forgot it had a byte pending would go deaf)
    import toolhost.backends.thread_wake as thread_wake

    real_read = os.read
    raced: list[bool] = []

    async def main() -> list[str]:
        loop = asyncio.get_running_loop()
        got: list[str] = []
        arrived = asyncio.Event()

        def deliver(item: str) -> None:
            got.append(item)
            if item == "after":
                arrived.set()

        waker = LoopWaker(loop, deliver)

        def racing_read(fd: int, size: int) -> bytes:
            if not raced:
                raced.append(True)
                waker.wake("during")  # as if a pool thread finished right now
            return real_read(fd, size)

        monkeypatch.setattr(thread_wake.os, "read", racing_read)
        waker.wake("first")
        await asyncio.sleep(0.05)
        threading.Thread(target=waker.wake, args=("after",)).start()
        await asyncio.wait_for(arrived.wait(), 5)
        return got

    assert asyncio.run(main()) == ["first", "during", "after"]
