"""Nothing a command tool started outlives it.

Every run of a command tool is a ``ToolRun``: the child starts in its own session (so its
process group is its pid) with ``TOOLHOST_RUN_ID=<id>`` in its environment, which every
descendant inherits. When the run ends, however it ends (normal exit, timeout, cancel, output
cap, host shutdown), ``ToolRun.end()`` kills:

- the whole process group (every platform), and
- on Linux, every descendant that left the group (``setsid``, a double fork): the host makes
  itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so an orphaned descendant is
  re-parented to the host instead of to init and stays in the host's process tree. ``end()``
  walks that tree (``/proc/<pid>/task/<tid>/children``) and kills every process that carries the
  run's id, belongs to its group, or descends from one that does, again until none is left, and
  reaps the ones that became the host's children.

- on Linux, an orphan re-parented to the host that holds one of the run's descriptors (the
  read end of a pipe passed to the leader, ``ToolRun.inherited_mark``, or the leader's stdout
  or stderr pipe): one that cleared its environment (``env -i``) and left the group and its
  parents is still found by it.

- on Linux, a daemon (it cleared its environment, closed every descriptor, left the group and
  its parents): the run's leader is its own subreaper (``subreaper_main``, a
  ``ToolRun(supervised=True)``), so every orphan of the run is re-parented to it, below the
  leader, found by ancestry; ``end()`` kills the rest first and the leader last.

- on Linux, a daemon that first kills the run's own subreaper (``kill -9 $PPID`` once
  orphaned), or a python worker, and so is re-parented to the host: when the leader died of
  a signal the host did not send (``ToolRun.orphaned``), ``end()`` also kills the host's
  *orphans*: its children that it never started (not a live run's leader, nor the
  watchdog, nor a child in the host's own session such as ``git``), that carry no run's
  marker and started after the run's leader. A run that is being started meanwhile is
  waited for first (its leader is not known yet).

On macOS and other systems only the group is killed; a ``setsid`` child escapes.

``kill_all_tool_processes()`` ends every live run at once (for the runner's shutdown).

If toolhost itself is killed outright (SIGKILL, the OOM killer), ``watchdog`` does the same
from outside: the group, and on Linux the processes that carry the run's id.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import secrets
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

from toolhost.backends import watchdog

__all__ = ["MARKER", "ToolRun", "enable_subreaper", "end_descendants",
           "kill_all_tool_processes", "live_runs"]

MARKER = "TOOLHOST_RUN_ID"
_MAX_ROUNDS = 50  # each round kills all it finds; a fork bomb converges well before this

_lock = threading.Lock()
_runs: dict[str, ToolRun] = {}
_counter = itertools.count(1)
_subreaper: bool | None = None
_pending = 0  # runs between ``starting`` and ``started``: a leader not yet known
_settled = threading.Condition(_lock)


def enable_subreaper() -> bool:
    """Make this process a child subreaper (Linux; once). Returns whether it is one."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            import ctypes

            with contextlib.suppress(OSError, AttributeError):
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
    return _subreaper


@dataclass
class ToolRun:
    """One command run: its id (the environment marker) and its process group."""

    run_id: str = field(default_factory=lambda: f"{os.getpid()}.{next(_counter)}."
                                                f"{secrets.token_hex(4)}")
    pgid: int | None = None
    ended: bool = False
    marks: frozenset[bytes] = frozenset()  # /proc links of descriptors only the run holds
    supervised: bool = False  # the leader is the run's own subreaper (``subreaper_main``)
    # the leader (a subreaper: the run's own, or a python worker) died of a signal the host
    # did not send: what it had adopted went to the host, and ``end`` sweeps the host's
    # orphans that started after it (``born``: its start, in clock ticks since boot)
    orphaned: bool = False
    born: int = 0
    _starting: bool = field(default=False, repr=False)

    def inherited_mark(self) -> int:
        """A descriptor to pass to the run's leader (``pass_fds``): the read end of a pipe
        nothing writes to, which every descendant inherits, so one that cleared its
        environment (``env -i``) and left the group and its parents (``setsid``, a double
        fork) still belongs to the run unless it closed its inherited descriptors. The caller
        closes it once the leader is started."""
        read, write = os.pipe()
        os.close(write)  # the pipe lives while the run's processes hold its read end
        self.marks |= {f"pipe:[{os.fstat(read).st_ino}]".encode()}
        return read

    def note_outputs(self, pid: int) -> None:
        """The leader's stdout and stderr pipes count as the run's marks too (Linux): a
        child that closed the inherited descriptors (a Python ``subprocess`` child) still
        writes its output there."""
        for fd in (1, 2):
            with contextlib.suppress(OSError):
                link = os.readlink(f"/proc/{pid}/fd/{fd}").encode()
                if link.startswith(b"pipe:"):
                    self.marks |= {link}

    def env(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` with the run's marker."""
        return {**env, MARKER: self.run_id}

    def starting(self) -> None:
        """Before the leader is started: from now on the watchdog knows the run's id."""
        global _pending
        with _lock:
            if not self._starting:
                self._starting = True
                _pending += 1
        watchdog.opened(0, self.run_id)

    def _settle(self) -> None:
        global _pending
        if self._starting:  # (under ``_lock``)
            self._starting = False
            _pending -= 1
            _settled.notify_all()

    def not_started(self) -> None:
        """The leader could not be started (or the start was cancelled)."""
        with _lock:
            self._settle()
        if self.pgid is None:
            watchdog.closed(0, self.run_id)

    def watched_by_owner(self) -> None:
        """The leader started, and its owner ends it (the Claude CLI, which ``toolhost run``
        stops itself): the start is settled without the run joining the live runs."""
        with _lock:
            self._settle()

    def started(self, pid: int) -> None:
        """Register the run's leader (its pid is its process group)."""
        self.pgid = pid
        stat = _fields(pid)
        self.born = int(stat[19]) if len(stat) > 19 else 0
        with _lock:
            _runs[self.run_id] = self
            self._settle()
        watchdog.opened(pid, self.run_id)  # and if toolhost is killed outright

    def end(self) -> int:
        """Kill everything the run started; returns how many escaped processes were killed
        besides the group. Safe to call more than once and from a signal handler."""
        with _lock:
            _runs.pop(self.run_id, None)
        if self.pgid is None:
            return 0
        killed: set[int] = set()
        if enable_subreaper():
            # Scan before killing and after every kill, once the killed are dead: a killed
            # parent's children move to the host as it exits, and a scan during that move
            # could miss them.
            for _ in range(_MAX_ROUNDS):
                found = _find(self.run_id.encode(), self.pgid, self.marks)
                if self.orphaned and self.born:
                    found += [pid for pid in _orphans(self.born) if pid not in found]
                rest = [pid for pid in found if pid != self.pgid]
                if self.supervised and rest:
                    found = rest  # the run's subreaper last: while it lives, every
                    # orphan of the run (one that left the group, cleared its environment
                    # and closed its descriptors too) is its child, found by ancestry
                if not found:
                    break
                for pid in found:
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.kill(pid, signal.SIGKILL)
                if found is not rest:
                    _killpg(self.pgid)
                killed.update(found)
                _wait_dead(found)
            killed.discard(self.pgid)
            _reap(killed)
        _killpg(self.pgid)
        if not self.ended:
            watchdog.closed(self.pgid, self.run_id)
        self.ended = True
        return len(killed)


def end_descendants() -> int:
    """Kill every live descendant of this process, again until none is left, and reap the
    killed that became its children; returns how many were killed. For a worker process
    between two calls (itself a subreaper, so what its tool started and orphaned is still
    below it): nothing a call started outlives the call. Linux only (``/proc``); elsewhere 0."""
    if not sys.platform.startswith("linux"):
        return 0
    killed: set[int] = set()
    for _ in range(_MAX_ROUNDS):
        found = [pid for pid, _ in _descendants()
                 if (stat := _stat(pid)) is not None and stat[0] not in ("Z", "X")]
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed.update(found)
        _wait_dead(found)
    _reap(set(killed))
    return len(killed)


def live_runs() -> list[ToolRun]:
    """The runs that have started and not ended."""
    with _lock:
        return list(_runs.values())


def kill_all_tool_processes() -> int:
    """End every live command run: kill each one's group and escaped descendants. For the
    runner's shutdown (sync, idempotent; also run at interpreter exit). Returns the count."""
    runs = live_runs()
    for run in runs:
        run.end()
    return len(runs)


atexit.register(kill_all_tool_processes)


def _killpg(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def _fields(pid: int) -> list[bytes]:
    """The fields of /proc/<pid>/stat after the command's name (state first)."""
    raw = _read(f"/proc/{pid}/stat")
    return raw[raw.rfind(b")") + 2:].split() if raw else []


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(state, ppid, pgid) from /proc/<pid>/stat."""
    fields = _fields(pid)
    if len(fields) < 3:
        return None
    return fields[0].decode(), int(fields[1]), int(fields[2])


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tids:
        out.extend(int(c) for c in _read(f"/proc/{pid}/task/{tid}/children").split())
    return out


def _descendants() -> list[tuple[int, int]]:
    """(pid, ppid) of every descendant of this process, parents first."""
    out: list[tuple[int, int]] = []
    todo = [os.getpid()]
    seen: set[int] = set()
    while todo:
        parent = todo.pop()
        for child in _children(parent):
            if child not in seen:
                seen.add(child)
                out.append((child, parent))
                todo.append(child)
    return out


def _find(marker: bytes, pgid: int, marks: frozenset[bytes] = frozenset()) -> list[int]:
    """Live descendants of the host that belong to the run (marker, group, ancestry, or an
    orphan re-parented to the host that holds the run's inherited descriptor)."""
    needle = MARKER.encode() + b"=" + marker + b"\0"
    ours: set[int] = set()
    found: list[int] = []
    host = os.getpid()
    for pid, ppid in _descendants():
        stat = _stat(pid)
        if stat is None:
            continue
        state, _, group = stat
        belongs = (ppid in ours or group == pgid
                   or needle in _read(f"/proc/{pid}/environ") + b"\0"
                   or (ppid == host and bool(marks) and _holds(pid, marks)))
        if belongs:
            ours.add(pid)
            if state not in ("Z", "X"):
                found.append(pid)
    return found


def _orphans(born: int) -> list[int]:
    """The host's live children that it did not start and that started at or after ``born``
    (clock ticks since boot): processes re-parented to it (the host is a subreaper) whose
    run's subreaper is gone. Not a live run's leader, nor the watchdog, nor a child in the
    host's own session (``git``), nor one carrying the marker of a live run (another run's,
    which that run ends; a marker naming no live run is anyone's to write, so it spares
    nothing). A run still being started is waited for (at most 2 s): its leader is a new
    session's first process with no marker until it is registered."""
    with _lock:
        _settled.wait_for(lambda: _pending == 0, timeout=2.0)
        known = {run.pgid for run in _runs.values()}
        live = {MARKER.encode() + b"=" + run.run_id.encode() for run in _runs.values()}
    known.add(watchdog.pid())
    host, session = os.getpid(), os.getsid(0)
    out: list[int] = []
    for pid in _children(host):
        fields = _fields(pid)
        if pid in known or len(fields) < 20 or fields[0] in (b"Z", b"X"):
            continue
        if int(fields[3]) == session or int(fields[19]) < born:
            continue
        if live.isdisjoint(_read(f"/proc/{pid}/environ").split(b"\0")):
            out.append(pid)
    return out


def _holds(pid: int, marks: frozenset[bytes]) -> bool:
    """Whether ``pid`` has a descriptor open on one of ``marks`` (``/proc/PID/fd`` links)."""
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}").encode() in marks:
                return True
    return False


def _wait_dead(pids: list[int], limit: float = 2.0) -> None:
    """Until each of ``pids`` is a zombie or gone (SIGKILL is delivered asynchronously)."""
    deadline = time.monotonic() + limit
    for pid in pids:
        while time.monotonic() < deadline:
            stat = _stat(pid)
            if stat is None or stat[0] in ("Z", "X"):
                break
            time.sleep(0.001)


def _reap(pids: set[int]) -> None:
    """Collect the zombies of killed escapees that were re-parented to the host. Only pids
    this run killed, never its leader (the event loop waits for that one)."""
    for _ in range(40):
        for pid in list(pids):
            try:
                done = os.waitpid(pid, os.WNOHANG)[0] != 0
            except ChildProcessError:  # not (yet) our child: gone, or still being orphaned
                done = _stat(pid) is None
            if done:
                pids.discard(pid)
        if not pids:
            return
        time.sleep(0.005)
