"""``SpillingText``: writes that never wait for a reader that stopped reading, in order once
it reads again, bounded, and a shell's description left as it was."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import select
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolhost.runner import spill_out
from toolhost.runner.spill_out import SpillingText
from toolhost.runner.terminal import Terminal

from .pty_harness import tty

__all__ = ["tty"]  # the fixture


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        with contextlib.suppress(OSError):
            os.close(fd)


def _read_all(fd: int, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    return data


def test_a_reader_that_stops_reading_never_blocks_a_write(pipe: tuple[int, int]) -> None:
    read, write = pipe
    out = SpillingText(write)
    lines = [f"line {n:06d} {'x' * 90}\n" for n in range(5000)]  # ~500 KB: 8 pipes full
    done = threading.Event()

    def writer() -> None:
        for line in lines:
            out.write(line)
        done.set()

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    # nobody reads: before, the writer stopped for good at the first full pipe
    assert done.wait(60), "a write waited for the reader"
    assert out.waiting > 0
    whole = "".join(lines).encode()
    reader = threading.Thread(target=lambda: got.append(_read_all(read, len(whole))))
    got: list[bytes] = []
    reader.start()
    assert out.finish(60)
    reader.join(60)
    assert got == [whole]  # every byte, in order
    assert out.lost == 0


def test_the_shells_description_keeps_its_blocking_mode(pipe: tuple[int, int]) -> None:
    _, write = pipe
    out = SpillingText(write)
    assert out.fileno() != write  # a description of its own
    assert not fcntl.fcntl(write, fcntl.F_GETFL) & os.O_NONBLOCK
    out.finish()
    assert out.fileno() == write  # and after the end, writes wait again, as before


def test_past_the_limit_a_write_fails_and_is_counted(pipe: tuple[int, int],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _, write = pipe
    monkeypatch.setattr(spill_out, "LIMIT", 200_000)
    out = SpillingText(write)
    failed = 0
    for _ in range(4000):
        try:
            out.write("y" * 99 + "\n")
        except OSError as exc:
            assert exc.errno == errno.ENOBUFS
            failed += 1
    assert failed > 0 and out.waiting <= 200_000  # memory stays bounded
    assert out.lost == failed * 100
    assert not out.finish(0.05)  # nobody reads: dropped at the deadline, and counted
    assert out.lost > failed * 100


def test_a_regular_file_is_written_as_before(tmp_path: Path) -> None:
    with open(tmp_path / "out", "wb") as file:
        out = SpillingText(file.fileno())
        assert out.fileno() == file.fileno()
        out.write("é\n")
        assert out.finish()
    assert (tmp_path / "out").read_bytes() == "é\n".encode()


def test_a_question_waits_for_the_transcript_still_on_its_way_to_the_terminal(
        tty: tuple[int, Terminal]) -> None:
    # runner36 R36-2 follow-up: with the transcript no longer written in place, what a slow
    # terminal had not taken yet would be written around a question written to it
    # straight: the question cut in two by the transcript's rest
    import anyio

    master, term = tty
    out = SpillingText(term.write_fd)
    out.write("".join(f"line {n:06d}\n" for n in range(40_000)) + "END-OF-TRANSCRIPT\n")
    assert out.waiting > 0  # the terminal took only part of it: nobody reads the master
    seen = bytearray()
    stop = threading.Event()

    def person() -> None:  # reads the screen; answers once the question is shown
        while not stop.is_set():
            if select.select([master], [], [], 0.05)[0]:
                seen.extend(os.read(master, 65536))
                if seen.rstrip().endswith(b"Allow?"):
                    os.write(master, b"n\n")
                    return

    reader = threading.Thread(target=person, daemon=True)
    reader.start()

    async def ask() -> str | None:
        with anyio.fail_after(60):
            return await term.readline("Allow? ", question=True)

    try:
        assert anyio.run(ask) == "n"
    finally:
        stop.set()
        reader.join(5)
        out.finish(5)
    text = seen.decode(errors="replace")
    assert text.index("END-OF-TRANSCRIPT") < text.index("Allow?"), text[-300:]


def test_stdout_and_stderr_on_one_file_keep_their_order_while_it_is_slow() -> None:
    # two sinks on one terminal (or `2>&1 |`) waited apart: a stderr line (a progress line, a
    # warning) overtook the stdout bytes still waiting for a slow reader
    from toolhost.runner.inert_fds import InertDescriptors

    read, write = os.pipe()
    one, two = os.dup(write), os.dup(write)  # as fds 1 and 2 on one file
    guard = InertDescriptors((one, two))
    try:
        assert guard.stream(one) is guard.stream(two)  # (one sink: its order is theirs)
        guard.stream(one).write("o" * 300_000 + "\n")  # more than the pipe holds
        guard.stream(two).write("AFTER\n")
        got: list[bytes] = []
        reader = threading.Thread(target=lambda: got.append(_read_all(read, 300_007)))
        reader.start()
        reader.join(60)
        assert got and got[0].endswith(b"o\nAFTER\n")
    finally:
        guard.close()
        for fd in (read, write, one, two):
            with contextlib.suppress(OSError):
                os.close(fd)
