"""Ending many command runs with one walk of the process tree.

A run's end walks the host's descendants in ``/proc`` and kills what belongs to the run, then
walks again until nothing is left. One walk costs as much as the host has descendants, so
runs that end together (a shutdown with hundreds of calls open, a burst of cancels) made
each walk once per run: quadratic. Here the runs whose ends arrive while a sweep is under
way wait, and the next sweep takes all of them in one walk per round: each process is
looked at once and given to the run it belongs to (its group, its marker, its inherited
descriptor, or its parent's run). Each run's ``end`` still returns only once its own
processes are dead.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from toolhost.backends import proc_tree

if TYPE_CHECKING:
    from toolhost.backends.reaper import ToolRun

__all__ = ["Batcher", "claim", "sweep"]

MARKER = b"TOOLHOST_RUN_ID="
_MAX_ROUNDS = 50  # each round kills all it finds; a fork bomb converges well before this

# the host's orphans that started at or after a clock tick, sparing the given pids
Orphans = Callable[[int, "set[int]"], list[int]]


def _marked(environ: bytes, ids: dict[bytes, str]) -> str | None:
    """The run whose marker ``environ`` carries (an entry that ends ``MARKER=<id>``)."""
    for entry in environ.split(b"\0"):
        at = entry.find(MARKER)
        while at >= 0:
            run_id = ids.get(entry[at + len(MARKER):])
            if run_id is not None:
                return run_id
            at = entry.find(MARKER, at + 1)
    return None


def claim(runs: Sequence[ToolRun]) -> dict[str, list[int]]:
    """The live descendants of the host that belong to each run: its group, its marker, an
    orphan re-parented to the host that holds one of its inherited descriptors, or a child
    of one that belongs. One walk for all ``runs``."""
    groups = {run.pgid: run.run_id for run in runs if run.pgid is not None}
    ids = {run.run_id.encode(): run.run_id for run in runs}
    marks = {mark: run.run_id for run in runs for mark in run.marks}
    owner: dict[int, str] = {}
    found: dict[str, list[int]] = {run.run_id: [] for run in runs}
    host = os.getpid()
    for pid, ppid in proc_tree.descendants():
        stat = proc_tree.stat(pid)
        if stat is None:
            continue
        state, _, group = stat
        run_id = owner.get(ppid) or groups.get(group)
        if run_id is None:
            run_id = _marked(proc_tree.read(f"/proc/{pid}/environ"), ids)
        if run_id is None and ppid == host and marks:
            held = proc_tree.held_mark(pid, marks.keys())
            run_id = marks[held] if held is not None else None
        if run_id is not None:
            owner[pid] = run_id
            if state not in ("Z", "X"):
                found[run_id].append(pid)
    return found


def sweep(runs: Sequence[ToolRun], orphans: Orphans) -> dict[str, int]:
    """Kill every escaped process of each of ``runs``, again until none is left; a run whose
    leader is its own subreaper (``supervised``) loses its leader last. Returns, per run id,
    how many were killed besides the leader."""
    killed: dict[str, set[int]] = {run.run_id: set() for run in runs}
    leaders = {run.pgid for run in runs if run.pgid is not None}
    swept = [run for run in runs if run.orphaned and run.born]
    for _ in range(_MAX_ROUNDS):
        # Scan before killing and after every kill, once the killed are dead: a killed
        # parent's children move to the host as it exits, and a scan during that move
        # could miss them.
        found = claim(runs)
        if swept:
            taken = {pid for pids in found.values() for pid in pids} | leaders
            first = swept[0].run_id
            found[first] += orphans(min(run.born for run in swept), taken)
        doomed: list[int] = []
        for run in runs:
            pids = found[run.run_id]
            rest = [pid for pid in pids if pid != run.pgid]
            if run.supervised and rest:
                pids = rest  # the run's subreaper last: while it lives, every orphan of
                # the run (one that left the group, cleared its environment and closed
                # its descriptors too) is its child, found by ancestry
            elif pids and run.pgid is not None:
                proc_tree.killpg(run.pgid)
            doomed += pids
            killed[run.run_id].update(pids)
        if not doomed:
            break
        proc_tree.kill(doomed)
        proc_tree.wait_dead(doomed)
    escaped: set[int] = set()
    for run in runs:
        killed[run.run_id].discard(run.pgid or 0)
        escaped |= killed[run.run_id]
    proc_tree.reap(escaped - leaders)
    return {run_id: len(pids) for run_id, pids in killed.items()}


class _Ticket:
    """One caller's end of some runs (a run may be ended by two callers at once)."""

    __slots__ = ("counts", "runs")

    def __init__(self, runs: Sequence[ToolRun]) -> None:
        self.runs = runs
        self.counts: list[int] | None = None


class Batcher:
    """One sweep at a time, for every run whose end arrived meanwhile."""

    def __init__(self, orphans: Orphans) -> None:
        self._orphans = orphans
        self._cond = threading.Condition(threading.Lock())
        self._queue: list[_Ticket] = []
        self._owner: int | None = None  # the thread sweeping now

    def end(self, runs: Sequence[ToolRun]) -> list[int]:
        """Sweep ``runs`` (with the others waiting); returns how many escapees each lost."""
        me = threading.get_ident()
        if self._owner == me:  # a signal handler on the sweeping thread: sweep alone
            alone = sweep(runs, self._orphans)
            return [alone[run.run_id] for run in runs]
        ticket = _Ticket(runs)
        with self._cond:
            self._queue.append(ticket)
            while ticket.counts is None and self._owner is not None:
                self._cond.wait()
            if ticket.counts is not None:
                return ticket.counts
            batch, self._queue = self._queue, []
            self._owner = me
        counts: dict[str, int] = {}
        try:
            counts = sweep(list({run.run_id: run for t in batch for run in t.runs}.values()),
                           self._orphans)
        finally:
            with self._cond:
                self._owner = None
                for other in batch:
                    if counts:
                        other.counts = [counts[run.run_id] for run in other.runs]
                    elif other is not ticket:  # the sweep failed: the next one retries
                        self._queue.append(other)
                self._cond.notify_all()
        return [counts[run.run_id] for run in runs]
