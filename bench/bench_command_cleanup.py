"""What "nothing a tool started outlives it" costs per command call.

    python bench/bench_command_cleanup.py [--runs 7] [--calls 100]

Prints the median per-call time of ``run_process(["true"])`` as it runs on Linux (the run's
own subreaper, ``subreaper_main``, started between the host and the program: a ``python -S
-I`` start; then the sweep: the host as child subreaper walks its descendants in /proc), the
same without the run's subreaper (the sweep only, as before secrets11), and without either
(only the process group is killed, as on macOS), and the median time of the sweep itself
(``ToolRun.end``) with nothing left to kill; and the time to end N runs open at once
(``kill_all_tool_processes``, one sweep for all) per run, for N and 4N runs: near 1x when
ending them costs linear time (it was quadratic: 300 runs took over 30 s).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

import anyio

from toolhost.backends import process, reaper
from toolhost.backends.process import run_process


async def calls(n: int) -> float:
    env = {"PATH": os.environ.get("PATH", os.defpath)}
    start = time.perf_counter()
    for _ in range(n):
        await run_process(["true"], stdin=None, env=env, cwd=None, max_output_bytes=1000)
    return (time.perf_counter() - start) / n


def sweep_only(n: int) -> float:
    times = []
    for _ in range(n):
        run = reaper.ToolRun()
        run.pgid = 2 ** 22 - 1  # no such group: the sweep walks and finds nothing
        start = time.perf_counter()
        run.end()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def many_open(n: int) -> float:
    """Seconds per run to end ``n`` runs open at once, each with an escaped child."""
    procs = []
    for _ in range(n):
        run = reaper.ToolRun()
        proc = subprocess.Popen(["sh", "-c", "setsid sleep 300 & sleep 300"],
                                start_new_session=True, env=run.env(dict(os.environ)))
        run.started(proc.pid)
        procs.append(proc)
    time.sleep(0.5)  # each has started its child
    start = time.perf_counter()
    reaper.kill_all_tool_processes()
    took = time.perf_counter() - start
    for proc in procs:
        proc.wait()
    return took / n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--open", type=int, default=50, help="runs open at once (N)")
    args = parser.parse_args()
    if reaper.enable_subreaper():
        small, large = many_open(args.open), many_open(4 * args.open)
        print(f"ending {args.open} / {4 * args.open} open runs: {small * 1e3:.2f} / "
              f"{large * 1e3:.2f} ms per run, ratio {large / small:.2f}x (1x: linear)")
    supervised = statistics.median(anyio.run(calls, args.calls) for _ in range(args.runs))
    supervisor, process._SUPERVISOR = process._SUPERVISOR, None
    with_sweep = statistics.median(anyio.run(calls, args.calls) for _ in range(args.runs))
    process._SUPERVISOR = supervisor
    sweep = sweep_only(args.calls * args.runs)
    reaper._subreaper = False  # as on macOS: the group only
    group_only = statistics.median(anyio.run(calls, args.calls) for _ in range(args.runs))
    print(f"run_process(['true']) own subreaper:     {supervised * 1e3:7.2f} ms/call")
    print(f"run_process(['true']) with the sweep:    {with_sweep * 1e3:7.2f} ms/call")
    print(f"run_process(['true']) group kill only:   {group_only * 1e3:7.2f} ms/call")
    print(f"ratio: {supervised / group_only:.2f}x (own subreaper), "
          f"{with_sweep / group_only:.2f}x (sweep); the sweep alone: {sweep * 1e3:.3f} ms "
          f"({len(os.listdir('/proc/self/task'))} host threads)")


if __name__ == "__main__":
    main()
