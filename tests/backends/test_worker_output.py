"""The host's one reading thread for every worker's fds 1 and 2 (``worker_stderr``, R36-1):
marks counted, output scrubbed, and one worker's failure never stops the others' output."""

from __future__ import annotations

import os
import time

import pytest

from toolhost.backends.worker_stderr import _READER, MARK, WorkerOutput


def _wait(done: object, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.01)


def test_marks_are_counted_and_output_is_written(capsys: pytest.CaptureFixture[str]) -> None:
    output = WorkerOutput()
    write = os.dup(output.child_fd)
    output.started()
    os.write(write, b"hello " + MARK[:5])
    os.write(write, MARK[5:] + b"world\n" + MARK)
    output.wait(2)
    assert output.out(2)
    os.close(write)
    _wait(lambda: output.out(10**9))
    err = capsys.readouterr().err
    assert err == "hello world\n" and "toolhost-drain" not in err


def test_a_failing_output_does_not_stop_the_others(capsys: pytest.CaptureFixture[str]) -> None:
    class Broken(WorkerOutput):
        def feed(self, chunk: bytes) -> None:
            raise RuntimeError("broken")

    broken, fine = Broken(), WorkerOutput()
    bad_write, good_write = os.dup(broken.child_fd), os.dup(fine.child_fd)
    broken.started()
    fine.started()
    os.write(bad_write, b"x")
    _wait(lambda: broken.out(10**9))  # its pipe is given up: ended
    os.write(good_write, b"still read\n" + MARK)
    fine.wait(1)
    assert fine.out(1)
    for fd in (bad_write, good_write):
        os.close(fd)
    _wait(lambda: fine.out(10**9))
    assert "still read" in capsys.readouterr().err
    assert _READER._selector is not None
