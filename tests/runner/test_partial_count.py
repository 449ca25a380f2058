"""Counting a line not finished yet (``ttyfd.pending_with_partial``) never changes what is
read after: a Ctrl-D queued behind whole lines stays the end of input, not a NUL byte
inside a merged line (line mode off and on makes the kernel's lines one)."""

from __future__ import annotations

import os
import pty
import select
import time
from collections.abc import Iterator

import pytest

from toolhost.runner.ttyfd import drain, pending, pending_with_partial


@pytest.fixture
def pty_pair() -> Iterator[tuple[int, int]]:
    master, slave = pty.openpty()
    try:
        yield master, slave
    finally:
        os.close(master)
        os.close(slave)


def _queued(master: int, slave: int, typed: bytes, whole: int) -> None:
    """Type ``typed`` and wait until the kernel holds ``whole`` bytes of whole lines."""
    os.write(master, typed)
    deadline = time.monotonic() + 10
    while pending(slave) < whole and time.monotonic() < deadline:
        time.sleep(0.01)
    assert pending(slave) == whole


def _read(slave: int) -> bytes | None:
    """One read; None when nothing is there to read (it would wait for ever)."""
    return os.read(slave, 100) if select.select([slave], [], [], 5)[0] else None


def _reads(slave: int, count: int) -> list[bytes | None]:
    return [_read(slave) for _ in range(count)]


def test_a_ctrl_d_between_lines_stays_the_end_of_input(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    _queued(master, slave, b"ab\n\x04cd\n", 6)  # the kernel counts the Ctrl-D as nothing
    assert pending_with_partial(slave) >= 6
    assert _reads(slave, 3) == [b"ab\n", b"", b"cd\n"]  # was [b"ab\n\x00cd\n", ...]


def test_a_ctrl_d_alone_is_counted_and_read_as_the_end(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    _queued(master, slave, b"ab\n", 3)
    assert _read(slave) == b"ab\n"
    os.write(master, b"\x04")
    deadline = time.monotonic() + 10
    count = 0
    while not count and time.monotonic() < deadline:  # queued once the kernel has it
        count = pending_with_partial(slave)
        time.sleep(0.01)
    assert count >= 1
    assert _read(slave) == b""  # the end of input, not a NUL line


def test_drain_drops_lines_and_a_ctrl_d_among_them(pty_pair: tuple[int, int]) -> None:
    master, slave = pty_pair
    _queued(master, slave, b"ab\n\x04cd\n", 6)
    assert drain(slave, quiet=0.05) >= 6
    assert pending(slave) == 0
    assert pending_with_partial(slave) == 0
