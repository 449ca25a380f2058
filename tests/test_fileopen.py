"""``open_regular``: a file the config names is opened without ever blocking, and only when it
is a regular file (checked before the open and again on the open descriptor)."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from toolhost.fileopen import file_kind, open_regular
from toolhost.lockfile.model import file_digest


@pytest.fixture
def specials(tmp_path: Path) -> Iterator[dict[str, str]]:
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "sock"))
    os.symlink(tmp_path / "fifo", tmp_path / "link-to-fifo")
    try:
        yield {"fifo": str(tmp_path / "fifo"), "directory": str(tmp_path / "dir"),
               "socket": str(tmp_path / "sock"), "device": "/dev/zero",
               "null device": "/dev/null", "symlink to a fifo": str(tmp_path / "link-to-fifo")}
    finally:
        sock.close()


def _within(seconds: float, call: Callable[[], object]) -> BaseException | None:
    """Run ``call`` in a thread; fail if it does not return (a blocked open) in time."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
            outcome.append(None)
        except BaseException as exc:  # handed back to the test
            outcome.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert outcome, "blocked"
    return outcome[0]


FLAGS = {"read": os.O_RDONLY, "append": os.O_WRONLY | os.O_APPEND | os.O_CREAT}


@pytest.mark.parametrize("flags", sorted(FLAGS))
@pytest.mark.parametrize("kind", ["fifo", "directory", "socket", "device", "null device",
                                  "symlink to a fifo"])
def test_anything_but_a_regular_file_is_refused_at_once(specials: dict[str, str], kind: str,
                                                        flags: str) -> None:
    error = _within(5, lambda: os.close(open_regular(specials[kind], FLAGS[flags])))
    assert isinstance(error, OSError), error
    assert "not a regular file" in (error.strerror or "") or kind == "directory", error
    assert "directory" in (error.strerror or "") or kind != "directory", error


def test_a_regular_file_is_opened_blocking_and_a_missing_one_created(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    fd = open_regular(str(path), os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    try:
        assert os.get_blocking(fd)
        os.write(fd, b"x\n")
    finally:
        os.close(fd)
    fd = open_regular(str(path))
    try:
        assert os.read(fd, 10) == b"x\n"
    finally:
        os.close(fd)
    with pytest.raises(FileNotFoundError):
        open_regular(str(tmp_path / "missing"))


def test_a_lock_digest_of_a_fifo_is_refused_not_awaited(specials: dict[str, str]) -> None:
    error = _within(5, lambda: file_digest(Path(specials["fifo"])))
    assert isinstance(error, OSError), error


def test_every_kind_has_a_name() -> None:
    assert file_kind(os.stat("/dev/zero").st_mode) == "a device"
    assert file_kind(os.stat("/").st_mode) == "a directory"
