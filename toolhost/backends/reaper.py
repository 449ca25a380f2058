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

``kill_all_tool_processes()`` ends every live run at once (for the runner's shutdown). Runs
that end together share their walks of the process tree (``reap_batch``): ending N runs costs
a few walks, not N; the /proc readers are ``proc_tree``'s.

If toolhost itself is killed outright (SIGKILL, the OOM killer), ``watchdog`` does the same
from outside: the group, and on Linux the processes that carry the run's id.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import secrets
import sys
import threading
from dataclasses import dataclass, field

from toolhost.backends import proc_tree, watchdog
from toolhost.backends.proc_tree import fields as _fields
from toolhost.backends.reap_batch import Batcher

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
        return _end([self])[0]

    def _closed(self) -> None:
        """After the sweep: the group once more, and the watchdog told (once)."""
        assert self.pgid is not None
        _killpg(self.pgid)
        if not self.ended:
            watchdog.closed(self.pgid, self.run_id)
        self.ended = True


def _end(runs: list[ToolRun]) -> list[int]:
    """End ``runs`` together: one sweep of the process tree for all of them (Linux)."""
    with _lock:
        for run in runs:
            _runs.pop(run.run_id, None)
    started = [run for run in runs if run.pgid is not None]
    counts = dict.fromkeys((run.run_id for run in runs), 0)
    if started and enable_subreaper():
        counts.update(zip((run.run_id for run in started), _batcher.end(started), strict=True))
    for run in started:
        run._closed()
    return [counts[run.run_id] for run in runs]


def end_descendants() -> int:
    """Kill every live descendant of this process, again until none is left, and reap the
    killed that became its children; returns how many were killed. For a worker process
    between two calls (itself a subreaper, so what its tool started and orphaned is still
    below it): nothing a call started outlives the call. Linux only (``/proc``); elsewhere 0."""
    if not sys.platform.startswith("linux"):
        return 0
    killed: set[int] = set()
    for _ in range(_MAX_ROUNDS):
        found = [pid for pid, _ in proc_tree.descendants()
                 if (stat := proc_tree.stat(pid)) is not None and stat[0] not in ("Z", "X")]
        if not found:
            break
        proc_tree.kill(found)
        killed.update(found)
        proc_tree.wait_dead(found)
    proc_tree.reap(set(killed))
    return len(killed)


def live_runs() -> list[ToolRun]:
    """The runs that have started and not ended."""
    with _lock:
        return list(_runs.values())


def kill_all_tool_processes() -> int:
    """End every live command run: kill each one's group and escaped descendants. For the
    runner's shutdown (sync, idempotent; also run at interpreter exit). Returns the count."""
    runs = live_runs()
    _end(runs)
    return len(runs)


atexit.register(kill_all_tool_processes)


_killpg = proc_tree.killpg


def _orphans(born: int, spare: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """The host's live children that it did not start and that started at or after ``born``
    (clock ticks since boot): processes re-parented to it (the host is a subreaper) whose
    run's subreaper is gone. Not a live run's leader, nor the watchdog, nor a child in the
    host's own session (``git``), nor one carrying the marker of a live run (another run's,
    which that run ends; a marker naming no live run is anyone's to write, so it spares
    nothing), nor one of ``spare`` (what a sweep already gives to a run, and the leaders of
    the runs it ends). A run still being started is waited for (at most 2 s): its leader is a new
    session's first process with no marker until it is registered."""
    with _lock:
        _settled.wait_for(lambda: _pending == 0, timeout=2.0)
        known = {run.pgid for run in _runs.values()}
        live = {MARKER.encode() + b"=" + run.run_id.encode() for run in _runs.values()}
    known |= {watchdog.pid(), *spare}
    host, session = os.getpid(), os.getsid(0)
    out: list[int] = []
    for pid in proc_tree.children(host):
        fields = _fields(pid)
        if pid in known or len(fields) < 20 or fields[0] in (b"Z", b"X"):
            continue
        if int(fields[3]) == session or int(fields[19]) < born:
            continue
        if live.isdisjoint(proc_tree.read(f"/proc/{pid}/environ").split(b"\0")):
            out.append(pid)
    return out


_batcher = Batcher(_orphans)
