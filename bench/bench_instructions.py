"""Instructions per call of ``toolhost run``, counted by valgrind: an A/B that load cannot move.

Run:  .venv/bin/python bench/bench_instructions.py [--subjects async,sync,can_use_tool]
                                                   [--calls 500,2500] [--inflight K]
                                                   [--cpu C] [--against OTHER_CHECKOUT]

Wall time on a shared machine moves by tens of percent between runs; the instructions a
process executes do not. Each subject runs ``toolhost run CONFIG -p go --cli FAKE_CLI`` (the
config and fake CLI of ``bench_run.py``, one call in flight) under ``valgrind
--tool=callgrind`` twice, with two call counts, and prints the difference divided by the
extra calls (both of the fake CLI's phases): the host's own instructions per call, start-up
cancelled out. Only the host is counted (valgrind does not follow the fake CLI). Slow:
about a minute per thousand calls. ``--against DIR`` counts another checkout (its ``.venv``)
the same way and prints this / it (a directory without a ``.venv``, e.g. a ``git archive`` of
another commit's ``toolhost/``, is run by this checkout's interpreter with the directory first
on ``PYTHONPATH``: the same interpreter and packages, only the tree differs). ``--inflight
K`` counts only the fake CLI's second phase, K calls in flight (the first, sequential one is
skipped), per call. ``--cpu C`` pins valgrind and the fake CLI to one CPU, as ``bench_run.py``
does: in flight that matters (unpinned, the fake CLI answers each answer at once on the other
CPU, so the host's reads hold one line or two; pinned, the host's batched write of a read's
answers is read whole and the next read holds the next batch: the regime ``bench_run.py``
measures). Instructions are not
time (a system call or a cache miss counts little), so read them with ``bench_run.py``'s
figures.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]


def count(checkout: Path, subject: str, calls: int, config: Path, cli: Path,
          inflight: int = 1, cpu: int | None = None) -> int:
    """Instructions of one ``toolhost run`` of ``calls`` calls (each phase; with
    ``inflight`` above 1, only the phase of that many calls in flight)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BENCH_SUBJECT": subject, "BENCH_CALLS": str(calls),
               "BENCH_INFLIGHT": str(inflight), "BENCH_WARMUP": "100",
               "BENCH_OUT": str(Path(tmp) / "stats.json"), "PYTHONPATH": str(config.parent),
               "PYTHONHASHSEED": "0"}
        if inflight > 1:
            env["BENCH_SEQ_CALLS"] = "0"
        bin_dir = checkout / ".venv" / "bin"
        if not bin_dir.is_dir():  # a bare tree: this interpreter, the tree imported first
            bin_dir = ROOT / ".venv" / "bin"
            env["PYTHONPATH"] = f"{checkout}{os.pathsep}{config.parent}"
        pin = ["taskset", "-c", str(cpu)] if cpu is not None else []
        argv = [*pin, "valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/cg.out",
                str(bin_dir / "python"), str(bin_dir / "toolhost"), "run", str(config),
                "-p", "go", "--cli", str(cli)]
        done = subprocess.run(argv, env=env, cwd=config.parent, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, timeout=3600, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_call(checkout: Path, subject: str, low: int, high: int, config: Path,
             cli: Path, inflight: int = 1, cpu: int | None = None) -> float:
    phases = 1 if inflight > 1 else 2
    return (count(checkout, subject, high, config, cli, inflight, cpu)
            - count(checkout, subject, low, config, cli, inflight, cpu)) / (phases * (high - low))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--subjects", default="async,sync,can_use_tool")
    parser.add_argument("--calls", default="500,2500", help="the two call counts")
    parser.add_argument("--inflight", type=int, default=1,
                        help="count only the phase of this many calls in flight")
    parser.add_argument("--cpu", type=int, metavar="C",
                        help="pin valgrind and the fake CLI to this CPU (as bench_run.py does)")
    parser.add_argument("--against", type=Path, metavar="DIR")
    args = parser.parse_args()
    low, high = (int(n) for n in args.calls.split(","))
    sys.path.insert(0, str(HERE.parent))
    from bench_run import write_fixtures

    with tempfile.TemporaryDirectory() as tmp:
        config, cli = write_fixtures(Path(tmp), "inline" in args.subjects.split(","))
        for subject in args.subjects.split(","):
            ours = per_call(ROOT, subject, low, high, config, cli, args.inflight, args.cpu)
            line = f"{subject:<13} instructions per call: {ours:,.0f}"
            if args.against:
                theirs = per_call(args.against.resolve(), subject, low, high, config, cli,
                                  args.inflight, args.cpu)
                line += f"   before: {theirs:,.0f}   this / before: {ours / theirs:.3f}x"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
