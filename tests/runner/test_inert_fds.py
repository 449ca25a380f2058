"""The thread that shows fds 1 and 2 inert blocks while the pipes are quiet: it woke every
``POLL`` seconds for the whole session (work that grew with wall time, so the instruction
counts of bench_instructions moved with the machine's load); ``close`` now wakes it."""

from __future__ import annotations

import os
import select
from types import SimpleNamespace

import pytest

from toolhost.runner import inert_fds
from toolhost.runner.inert_fds import InertDescriptors


def _read_until(fd: int, want: bytes) -> bytes:
    got = b""
    while want not in got:
        # a bound only so that a broken pump fails instead of hanging the suite
        ready, _, _ = select.select([fd], [], [], 30)
        assert ready, f"never shown: {want!r} (got {got!r})"
        got += os.read(fd, 65_536)
    return got


@pytest.mark.parametrize("child_keeps_it_open", [False, True])
def test_the_pump_blocks_without_a_timeout_until_close_wakes_it(
        monkeypatch: pytest.MonkeyPatch, child_keeps_it_open: bool) -> None:
    timeouts: list[float | None] = []

    def recording(reads: list[int], writes: list[int], errors: list[int],
                  timeout: float | None = None) -> tuple[list[int], list[int], list[int]]:
        timeouts.append(timeout)
        return select.select(reads, writes, errors, timeout)

    monkeypatch.setattr(inert_fds, "select", SimpleNamespace(select=recording))
    shown, where = os.pipe()  # what the guarded fd pointed to before: the "terminal"
    guard = InertDescriptors((where,)).start()
    kept = os.dup(where) if child_keeps_it_open else None  # a child still holding the pipe
    try:
        os.write(where, b"one\n")
        _read_until(shown, b"one\n")
        os.write(where, b"two\n")
        _read_until(shown, b"two\n")
        assert timeouts and set(timeouts) == {None}  # no timer while the session runs
        thread = guard._thread
        assert thread is not None
        guard.close()
        assert not thread.is_alive()  # woken, and done (quiet after close, or the pipe's end)
    finally:
        if kept is not None:
            os.close(kept)
        for fd in (shown, where, *guard.real.values()):
            os.close(fd)


def test_a_tool_that_closes_the_pumps_descriptors_ends_it_without_a_traceback(
        monkeypatch: pytest.MonkeyPatch) -> None:
    crashes: list[object] = []
    monkeypatch.setattr("threading.excepthook", crashes.append)
    shown, where = os.pipe()
    guard = InertDescriptors((where,)).start()
    thread = guard._thread
    assert thread is not None and guard._wake is not None
    try:
        os.close(guard._wake[0])  # what ``os.closerange(3, ...)`` in a tool does to it
        os.write(where, b"one\n")  # wakes the thread if it was waiting: it looks again
        thread.join(30)  # a bound only: a broken pump fails instead of hanging the suite
        assert not thread.is_alive()
        assert crashes == []
        guard.close()
    finally:
        for fd in (shown, where, *guard.real.values()):
            os.close(fd)
