"""Reading the host's process tree from ``/proc`` (Linux), and killing and reaping in it.

The small readers the reaper's sweeps are made of: a process's ``stat`` fields, its children
(every thread's), the host's descendants parents first, whether a process holds one of a set
of descriptors, waiting until killed processes are dead, and collecting the zombies that
became the host's children. Every reader answers "nothing" for a process that is gone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Collection

__all__ = ["children", "descendants", "fields", "held_mark", "kill", "killpg", "read", "reap",
           "stat", "wait_dead"]


def killpg(pgid: int) -> None:
    """SIGKILL to a process group; nothing if it is gone or not ours."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def kill(pids: Collection[int]) -> None:
    """SIGKILL to each of ``pids``; nothing for one that is gone or not ours."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def read(path: str) -> bytes:
    """A /proc file's bytes; empty if the process is gone (or the file unreadable)."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def fields(pid: int) -> list[bytes]:
    """The fields of /proc/<pid>/stat after the command's name (state first)."""
    raw = read(f"/proc/{pid}/stat")
    return raw[raw.rfind(b")") + 2:].split() if raw else []


def stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, pgid) from /proc/<pid>/stat."""
    found = fields(pid)
    if len(found) < 3:
        return None
    return found[0].decode(), int(found[1]), int(found[2])


def children(pid: int) -> list[int]:
    """The children of every thread of ``pid``."""
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        out.extend(int(c) for c in read(f"/proc/{pid}/task/{tid}/children").split())
    return out


def descendants() -> list[tuple[int, int]]:
    """(pid, ppid) of every descendant of this process, parents first."""
    out: list[tuple[int, int]] = []
    todo = [os.getpid()]
    seen: set[int] = set()
    while todo:
        parent = todo.pop()
        for child in children(parent):
            if child not in seen:
                seen.add(child)
                out.append((child, parent))
                todo.append(child)
    return out


def held_mark(pid: int, marks: Collection[bytes]) -> bytes | None:
    """The first of ``marks`` (``/proc/PID/fd`` link texts) that ``pid`` holds open."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return None
    for fd in fds:
        with contextlib.suppress(OSError):
            link = os.readlink(f"/proc/{pid}/fd/{fd}").encode()
            if link in marks:
                return link
    return None


def wait_dead(pids: list[int], limit: float = 2.0) -> None:
    """Until each of ``pids`` is a zombie or gone (SIGKILL is delivered asynchronously)."""
    deadline = time.monotonic() + limit
    for pid in pids:
        while time.monotonic() < deadline:
            found = stat(pid)
            if found is None or found[0] in ("Z", "X"):
                break
            time.sleep(0.001)


def reap(pids: set[int]) -> None:
    """Collect the zombies of killed escapees that were re-parented to the host. Only pids
    the caller killed, never a run's leader (the event loop waits for that one)."""
    for _ in range(40):
        for pid in list(pids):
            try:
                done = os.waitpid(pid, os.WNOHANG)[0] != 0
            except ChildProcessError:  # not (yet) our child: gone, or still being orphaned
                done = stat(pid) is None
            if done:
                pids.discard(pid)
        if not pids:
            return
        time.sleep(0.005)
