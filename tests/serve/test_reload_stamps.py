"""What the Reloader takes as a change: any new content of a watched file, whatever its size
and modification time say. Stamps were (mtime, size): an edit of the same size whose
modification time was put back (``touch -r``, ``cp -p``, ``rsync -t``, an archive unpacked),
or a file replaced by another (a rename, a symbolic link) of the same size and time, was
never reloaded: the server went on with the old rules for good."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolhost.reload import Reloader

pytestmark = pytest.mark.anyio

OLD = '{"default": "deny"}'
NEW = '{"default": "ask!"}'  # the same size


def _read(path: str) -> str:
    return Path(path).read_text()


def _same_size_times_put_back(config: Path, tmp_path: Path) -> None:
    times = config.stat()
    config.write_text(NEW)
    os.utime(config, ns=(times.st_atime_ns, times.st_mtime_ns))


def _renamed_over(config: Path, tmp_path: Path) -> None:
    times = config.stat()
    other = tmp_path / "other.json"
    other.write_text(NEW)
    os.utime(other, ns=(times.st_atime_ns, times.st_mtime_ns))
    other.replace(config)


def _symlinked_over(config: Path, tmp_path: Path) -> None:
    times = config.stat()
    other = tmp_path / "other.json"
    other.write_text(NEW)
    os.utime(other, ns=(times.st_atime_ns, times.st_mtime_ns))
    link = tmp_path / "link.json"
    link.symlink_to(other)
    link.replace(config)


@pytest.mark.parametrize("edit", [_same_size_times_put_back, _renamed_over, _symlinked_over])
async def test_new_content_of_the_same_size_and_time_is_reloaded(tmp_path: Path,
                                                                  edit: object) -> None:
    config = tmp_path / "c.json"
    config.write_text(OLD)
    swapped: list[str] = []

    async def on_swap(new: str) -> None:
        swapped.append(new)

    reloader = Reloader(config, load=_read, on_swap=on_swap, initial=None, interval=0.01)
    assert await reloader.check() is False
    assert callable(edit)
    edit(config, tmp_path)
    assert config.stat().st_size == len(OLD)
    assert await reloader.check() is True
    assert swapped == [NEW]
    assert await reloader.check() is False  # once
