"""Reading a file at decision time, never blocking: what a command will run or change.

The run-later readers (a script ``bash s.sh`` runs, a Makefile, a patch ``git apply`` reads, the
file an Edit changes) read the file as it is when the call is decided. Each opens it
non-blocking (a FIFO never waits for a writer: the decision would hang), takes only a regular
file, and reads at most ``limit + 1`` bytes, so a file over the limit is known without reading
it all (``FileRead.too_long``); what each reader makes of a missing file, a directory, or
something it cannot read is its own.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from typing import Literal

__all__ = ["FileRead", "read_regular", "writable_here"]

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@dataclass(frozen=True)
class FileRead:
    """What is at a path: ``missing`` (nothing, or a file where a directory should be),
    ``directory``, ``other`` (a FIFO, a device, a socket, or a file that cannot be read), or
    a regular ``file`` and its first ``limit + 1`` bytes (``data``)."""

    kind: Literal["missing", "directory", "other", "file"]
    data: bytes = b""
    limit: int = 0

    @property
    def too_long(self) -> bool:
        """Whether a regular file holds more than the limit (``data`` is then its head)."""
        return self.kind == "file" and len(self.data) > self.limit


def read_regular(path: str, limit: int) -> FileRead:
    """The file at ``path`` as ``FileRead`` (see there); never blocks, never raises."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError as exc:
        return FileRead("missing" if exc.errno in (errno.ENOENT, errno.ENOTDIR) else "other")
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            return FileRead("directory")
        if not stat.S_ISREG(mode):
            return FileRead("other")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:  # (a read may return less than asked: loop to the limit)
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return FileRead("other")
    finally:
        os.close(fd)
    return FileRead("file", b"".join(chunks), limit)


def writable_here(paths: list[str]) -> list[str]:
    """The files of ``paths`` (an administrator's: ``/etc/...``) this process could have
    written or put in place, so an earlier call could have: read like the user's own."""
    return [p for p in paths if os.access(p, os.W_OK)
            or os.access(os.path.dirname(p), os.W_OK | os.X_OK)]
