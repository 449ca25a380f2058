"""Opening a file the config names (a resource, the audit log) without ever blocking.

``open()`` of a FIFO waits for its other end, and a device such as ``/dev/zero`` never ends:
either would freeze the event loop that serves every request. :func:`open_regular` looks at
what the path is before opening it, opens with ``O_NONBLOCK`` (a FIFO swapped in between
cannot block the open either) and checks the opened file again with ``fstat``.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["file_kind", "open_regular"]

_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is, in words ("a regular file", "a FIFO", "a directory", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _refuse(path: str, mode: int) -> OSError:
    kind = file_kind(mode)
    code = errno.EISDIR if stat.S_ISDIR(mode) else errno.EINVAL
    text = kind if kind.startswith("not ") else f"{kind}, not a regular file"
    return OSError(code, text, path)


def open_regular(path: str, flags: int = os.O_RDONLY, mode: int = 0o666) -> int:
    """A descriptor of the regular file ``path`` (created when ``flags`` say so), opened
    without blocking; an ``OSError`` whose ``strerror`` says what the path is otherwise."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if not flags & os.O_CREAT:
            raise
    else:
        if not stat.S_ISREG(info.st_mode):
            raise _refuse(path, info.st_mode)
    fd = os.open(path, flags | _NONBLOCK | _CLOEXEC, mode)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # swapped between the stat and the open
            raise _refuse(path, info.st_mode)
        if _NONBLOCK:  # a regular file: back to ordinary (blocking) reads and writes
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd
