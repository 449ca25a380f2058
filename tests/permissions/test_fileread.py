"""read_regular: the one bounded, never-blocking read of the run-later readers (a script, a
Makefile, a patch, a file an Edit changes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolhost.permissions.fileread import read_regular


def test_what_is_at_a_path(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"abc")
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "fifo")  # no writer: a blocking open would wait for ever
    assert read_regular(str(tmp_path / "f"), 10).data == b"abc"
    assert read_regular(str(tmp_path / "nothing"), 10).kind == "missing"
    assert read_regular(str(tmp_path / "f" / "under"), 10).kind == "missing"
    assert read_regular(str(tmp_path / "d"), 10).kind == "directory"
    assert read_regular(str(tmp_path / "fifo"), 10).kind == "other"
    assert read_regular("/dev/zero", 10).kind == "other"  # endless: never read


@pytest.mark.parametrize("size,limit,long", [(0, 0, False), (5, 5, False), (6, 5, True),
                                             (1 << 20, 1000, True)])
def test_a_file_over_the_limit_is_known_by_its_head(tmp_path: Path, size: int, limit: int,
                                                    long: bool) -> None:
    (tmp_path / "f").write_bytes(b"x" * size)
    read = read_regular(str(tmp_path / "f"), limit)
    assert read.kind == "file" and read.too_long is long
    assert read.data == b"x" * min(size, limit + 1)
