"""PipeLines: a real OS pipe read as lines by an asyncio protocol, as ``toolhost run`` reads
the CLI's output. It must give exactly what ``LineReader`` gives, whatever the chunking, stay
bounded when nobody takes its lines, and survive a broken inline handler."""

from __future__ import annotations

import asyncio
import itertools
import os
import threading

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolhost.errors import FrameTooLongError
from toolhost.protocol.pipes import PAUSE_BYTES, PipeLines

from .test_framing import read_all

pytestmark = pytest.mark.anyio


async def pipe_lines(limit: int) -> tuple[PipeLines, asyncio.StreamWriter]:
    read_fd, write_fd = os.pipe()
    lines = await PipeLines.open(read_fd, limit)
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(write_fd, "wb", buffering=0))
    return lines, asyncio.StreamWriter(transport, protocol, None, loop)


async def take_all(lines: PipeLines) -> list[bytes | str]:
    out: list[bytes | str] = []
    while True:
        try:
            out.append(await lines.receive_line())
        except FrameTooLongError:
            out.append("TOO LONG")
        except anyio.EndOfStream:
            return out


async def through_a_pipe(chunks: list[bytes], limit: int) -> list[bytes | str]:
    lines, writer = await pipe_lines(limit)

    async def write() -> None:
        for chunk in chunks:
            writer.write(chunk)
            await writer.drain()
            await asyncio.sleep(0)  # let the chunk arrive alone, now and then
        writer.close()

    async with anyio.create_task_group() as tg:
        tg.start_soon(write)
        got = await take_all(lines)
    lines.aclose()
    return got


async def test_lines_over_long_lines_and_a_last_line_without_newline() -> None:
    chunks = [b"ab", b"c\nde", b"f\ng\nh", b"\n", b"x" * 20, b"y\nok\n", b"tail"]
    assert await through_a_pipe(chunks, 10) == [b"abc", b"def", b"g", b"h", "TOO LONG",
                                               b"ok", b"tail"]
    assert await through_a_pipe([b"ok\n", b"z" * 50], 5) == [b"ok", "TOO LONG"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
                      max_size=20),
       cuts=st.lists(st.integers(min_value=0, max_value=2000), max_size=12),
       limit=st.integers(min_value=1, max_value=30), end=st.booleans())
def test_property_the_same_lines_as_the_line_reader(lines: list[bytes], cuts: list[int],
                                                     limit: int, end: bool) -> None:
    data = b"\n".join(lines) + (b"\n" if end else b"")
    points = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    chunks = [data[a:b] for a, b in itertools.pairwise(points) if b > a]
    expected = anyio.run(read_all, chunks, limit)
    assert anyio.run(through_a_pipe, chunks, limit) == expected


async def test_nobody_taking_lines_stops_the_reading_memory_stays_bounded() -> None:
    lines, writer = await pipe_lines(1 << 20)
    line = b"x" * 999 + b"\n"
    total = 3 * PAUSE_BYTES
    written = 0

    async def write() -> None:
        nonlocal written
        while written < total:
            writer.write(line * 64)
            written += 64 * len(line)
            await writer.drain()

    async with anyio.create_task_group() as tg:
        tg.start_soon(write)
        await anyio.sleep(0.5)
        # The writer is blocked: PipeLines stopped reading past PAUSE_BYTES.
        assert written < total
        assert lines._queued <= PAUSE_BYTES + (1 << 18)
        count = 0
        while count < total // len(line):
            assert await lines.receive_line() == b"x" * 999
            count += 1
    writer.close()
    rest = await take_all(lines)
    assert set(rest) <= {b"x" * 999}
    assert count + len(rest) == written // len(line)  # every line, once
    lines.aclose()


async def test_the_inline_handler_sees_lines_only_while_the_reader_waits() -> None:
    lines, writer = await pipe_lines(1000)
    offered: list[bytes] = []

    def inline(line: bytes) -> bool:
        offered.append(line)
        if line == b"boom":
            raise RuntimeError("a bug")
        return line.startswith(b"take")

    lines.inline = inline
    writer.write(b"early\n")  # nobody waits yet: queued, never offered
    await writer.drain()
    await anyio.sleep(0.05)
    assert await lines.receive_line() == b"early"
    waiting = asyncio.ensure_future(lines.receive_line())
    await anyio.sleep(0.01)
    writer.write(b"take 1\ntake 2\nboom\ntake 3\n")  # taken, taken, bug: queued with the rest
    await writer.drain()
    assert await waiting == b"boom"
    assert await lines.receive_line() == b"take 3"
    assert offered == [b"take 1", b"take 2", b"boom"]
    writer.close()
    with pytest.raises(anyio.EndOfStream):
        await lines.receive_line()
    lines.aclose()


@pytest.mark.parametrize("broken", [False, True])
async def test_a_reads_lines_answered_inline_are_held_once_for_their_output(broken: bool) -> None:
    # ``toolhost run`` flushes the decision lines of one read once (``hold_output``); a read
    # of one line is not held, and a hook that fails never ends the reading.
    lines, writer = await pipe_lines(1000)
    seen: list[object] = []

    def inline(line: bytes) -> bool:
        seen.append(line)
        return True

    def hold(on: bool) -> None:
        seen.append(on)
        if broken:
            raise RuntimeError("a bug")

    lines.inline, lines.hold_output = inline, hold
    for chunk, said in ((b"a\nb\nc\n", [True, b"a", b"b", b"c", False]), (b"d\n", [b"d"])):
        waiting = asyncio.ensure_future(lines.receive_line())
        await anyio.sleep(0.01)
        seen.clear()
        writer.write(chunk)
        await writer.drain()
        with anyio.fail_after(5):  # never a hang: on failure, what was seen is compared
            while seen[-1:] != said[-1:]:
                await anyio.sleep(0.001)
        assert seen == said
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
    lines.inline = None  # the reading goes on: the next line is queued for the session
    writer.write(b"left\n")
    writer.close()
    assert await lines.receive_line() == b"left"
    lines.aclose()


@pytest.mark.parametrize("elsewhere", ["thread", "other loop"])
async def test_read_now_is_refused_off_the_loop_s_thread(elsewhere: str) -> None:
    # the queue and the splitter are the loop's, unlocked: a read from another thread (or
    # from another loop's thread) could tear a line; it must not read at all
    read_fd, write_fd = os.pipe()
    lines = await PipeLines.open(read_fd, 1024)
    try:
        os.write(write_fd, b"first\nsecond\n")
        raised: list[BaseException] = []

        def read_there() -> None:
            try:
                if elsewhere == "thread":
                    lines.read_now()
                else:
                    async def in_its_loop() -> None:
                        lines.read_now()
                    asyncio.run(in_its_loop())
            except BaseException as exc:  # the test looks at it
                raised.append(exc)

        there = threading.Thread(target=read_there)
        there.start()
        there.join()  # the loop is held: it cannot read the pipe meanwhile
        assert [type(exc) for exc in raised] == [RuntimeError], raised
        assert "off its event loop's thread" in str(raised[0])
        lines.read_now()  # on the loop's thread: read at once
        os.close(write_fd)
        write_fd = -1
        assert await take_all(lines) == [b"first", b"second"]
    finally:
        if write_fd >= 0:
            os.close(write_fd)
        lines.aclose()
