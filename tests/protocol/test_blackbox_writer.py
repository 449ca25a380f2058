"""LineWriter on a real subprocess pipe (the path ``toolhost run`` uses): lines written from
many tasks, some cancelled while writing, arrive whole and in order; a closed peer is a
``BrokenResourceError``, never a hang or a stray half line."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest

from toolhost.protocol import LineReader
from toolhost.protocol.framing import LineWriter

pytestmark = pytest.mark.anyio

ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line)\n" \
       "    sys.stdout.buffer.flush()\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_lines_from_many_tasks_arrive_whole_even_when_writers_are_cancelled() -> None:
    async with await anyio.open_process([sys.executable, "-c", ECHO],
                                        stderr=subprocess.DEVNULL) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        writer = LineWriter(proc.stdin)
        big = "y" * 300_000  # bigger than the pipe buffer: the writer has to wait

        async def send(i: int) -> None:
            await writer.send({"i": i, "pad": big if i % 50 == 0 else ""})

        async with anyio.create_task_group() as tg:
            for i in range(500):
                tg.start_soon(send, i)
            with anyio.CancelScope() as scope:  # cancelled writers still write whole lines
                scope.cancel()
                await writer.send({"i": -1, "pad": ""})
            reader = LineReader(proc.stdout, 1 << 24)
            seen: list[int] = []
            with anyio.fail_after(30):
                while len(seen) < 501:
                    seen.append(json.loads(await reader.receive_line())["i"])
        await proc.stdin.aclose()
    # Every line whole (it parsed), once, in the order it was sent: the cancelled writer's
    # line first, it was sent before the tasks started.
    assert seen == [-1, *range(500)]


async def test_writing_to_a_peer_that_exited_is_broken_resource() -> None:
    async with await anyio.open_process([sys.executable, "-c", "pass"],
                                        stderr=subprocess.DEVNULL) as proc:
        assert proc.stdin is not None
        await proc.wait()
        writer = LineWriter(proc.stdin)
        with anyio.fail_after(10), pytest.raises(anyio.BrokenResourceError):
            for _ in range(100):
                await writer.send({"x": "z" * 10_000})
                await anyio.sleep(0.01)
