"""NDJSON framing: the capped line reader and the locked writer."""

from __future__ import annotations

import json

import anyio
import pytest

from toolhost.errors import FrameTooLongError
from toolhost.protocol import LineReader, LineWriter

from .session_harness import byte_pipe

pytestmark = pytest.mark.anyio


async def read_all(chunks: list[bytes], limit: int) -> list[bytes | str]:
    """Feed chunks, return each line or 'TOO LONG' for each skipped one."""
    send, receive = byte_pipe()
    for chunk in chunks:
        await send.send(chunk)
    await send.aclose()
    reader = LineReader(receive, limit)
    out: list[bytes | str] = []
    while True:
        try:
            out.append(await reader.receive_line())
        except FrameTooLongError:
            out.append("TOO LONG")
        except anyio.EndOfStream:
            break
    await receive.aclose()
    return out


async def test_lines_split_across_chunks_and_many_per_chunk() -> None:
    out = await read_all([b"ab", b"c\nde", b"f\ng\nh", b"\n", b"tail-without-newline"], 100)
    assert out == [b"abc", b"def", b"g", b"h", b"tail-without-newline"]


async def test_too_long_lines_are_skipped_not_fatal() -> None:
    out = await read_all([b"12345\n", b"123456\n", b"ok\n"], 5)
    assert out == [b"12345", "TOO LONG", b"ok"]
    # A long line arriving in pieces is dropped as it streams, then reading goes on.
    out = await read_all([b"ok1\n12", b"345", b"67", b"89\nok2\n"], 5)
    assert out == [b"ok1", "TOO LONG", b"ok2"]
    # ...also when the stream ends inside it.
    out = await read_all([b"ok\n", b"x" * 50], 5)
    assert out == [b"ok", "TOO LONG"]


async def test_the_reader_rejects_a_silly_limit() -> None:
    send, receive = byte_pipe()
    with pytest.raises(ValueError, match="max_line_bytes"):
        LineReader(receive, 0)
    await send.aclose()
    await receive.aclose()


async def test_concurrent_big_writes_never_interleave_through_a_real_pipe() -> None:
    # `cat` echoes what we write: 40 writers at once, lines far bigger than a pipe buffer.
    async with await anyio.open_process(["cat"]) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        writer = LineWriter(proc.stdin)
        reader = LineReader(proc.stdout, 10_000_000)
        got: list[dict[str, object]] = []

        async def read() -> None:
            while len(got) < 40:
                got.append(json.loads(await reader.receive_line()))

        async with anyio.create_task_group() as tg:
            tg.start_soon(read)
            for i in range(40):
                tg.start_soon(writer.send, {"i": i, "pad": chr(97 + i % 26) * 300_000})
        await writer.aclose()
    assert sorted(int(str(g["i"])) for g in got) == list(range(40))
    for g in got:
        assert g["pad"] == chr(97 + int(str(g["i"])) % 26) * 300_000


class _Transport:
    def get_write_buffer_size(self) -> int:
        return 0


class _Pipe:
    """What ``LineWriter`` writes to on a subprocess pipe: records each write call."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.transport = _Transport()

    def write(self, data: bytes) -> None:
        self.writes.append(data)

    def is_closing(self) -> bool:
        return False


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.parametrize("more,expected", [
    (False, [b"a\n", b"b\n", b"c\n"]),  # nothing else due: each line goes out at once
    (True, [b"a\n", b"b\n" + b"c\n"]),  # more lines behind the first: the rest is one write
])
async def test_answers_decided_together_go_out_in_one_batch(more: bool, expected: list[bytes]
                                                            ) -> None:
    import asyncio

    writer = LineWriter(object())  # type: ignore[arg-type]
    pipe = _Pipe()
    writer._direct = pipe  # type: ignore[assignment]
    loop = asyncio.get_running_loop()
    done = loop.create_future()

    def one_turn() -> None:  # as PipeLines.data_received answers a chunk's lines
        try:
            for i, line in enumerate((b"a\n", b"b\n", b"c\n")):
                assert writer.write_now(line, more=more and i < 2)
        except BaseException as exc:  # reported by the await below
            done.set_exception(exc)
            return
        loop.call_soon(loop.call_soon, done.set_result, None)

    loop.call_soon(one_turn)
    with anyio.fail_after(5):
        await done
    assert pipe.writes == expected
