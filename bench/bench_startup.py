"""Start-up of fresh processes: what a person waits for before toolhost answers.

Run:  .venv/bin/python bench/bench_startup.py [--rounds N] [--against OTHER_CHECKOUT]

Each subject is a new process, started ``--rounds`` times in interleaved order (so a busy
moment of a shared machine hits every subject alike); the medians are printed with the
issue's targets and, as a reference measured in the same rounds, a bare ``python -c pass``
(the interpreter's own start, which no Python program can beat):

- ``toolhost --help``                      target <= 100 ms
- ``toolhost validate`` of examples/configs/demo.yaml   target <= 300 ms
- ``toolhost serve`` (stdio) until it answers ``initialize``   target <= 200 ms
- loading and compiling 1,000 tools (YAML, TOML) in a fresh process   target <= 250 ms

Each subject's median CPU time (user + system of the whole child process, from
``getrusage``) is printed beside its wall time: on a shared machine the wall time moves with
the load (a loaded two-core machine showed 1.5-2.7 s of wall for ~0.22 s of CPU), the CPU
time far less, so it is the figure to compare between runs there.

``--against DIR`` runs every subject of another checkout too (its own ``.venv``, e.g. a
``git worktree`` of the commit to compare with), in the same rounds, order alternating, and
prints its medians and the median of the round-by-round ratios (this checkout / that one).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
DEMO = ROOT / "examples" / "configs" / "demo.yaml"
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"


# As installed on a person's machine: bytecode is cached (some sandboxes and CI images set
# PYTHONDONTWRITEBYTECODE, which makes every start compile every module again).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


Sample = tuple[float, float]  # (wall seconds, CPU seconds of the child process)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(argv: list[str], cwd: Path = ROOT) -> Sample:
    cpu = _children_cpu()
    start = time.perf_counter()
    # cwd matters: `python -m toolhost` imports toolhost from the current directory first
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   cwd=cwd, env=ENV)
    return time.perf_counter() - start, _children_cpu() - cpu


def serve_first_answer(config: Path, py: str = PY, cwd: Path = ROOT) -> Sample:
    cpu = _children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen([py, "-m", "toolhost", "serve", str(config), "--all"], cwd=cwd,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env=ENV)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(INIT.encode())
    proc.stdin.flush()
    line = proc.stdout.readline()
    elapsed = time.perf_counter() - start
    assert b'"result"' in line, line
    proc.stdin.close()
    proc.wait(30)
    proc.stdout.close()
    return elapsed, _children_cpu() - cpu  # CPU: the whole process, its shutdown included


def thousand_tools(directory: Path) -> tuple[Path, Path]:
    yaml_lines = ["toolhost: 1", "servers:", "  big:", "    tools:"]
    toml_lines = ["toolhost = 1", ""]
    for i in range(1000):
        yaml_lines += [f"      t{i}:", f"        command: [echo, '{{{{ v }}}}', '{i}']",
                       "        params: {v: string}"]
        toml_lines += [f"[servers.big.tools.t{i}]", f"command = ['echo', '{{{{ v }}}}', '{i}']",
                       "params = { v = 'string' }", ""]
    yaml_path, toml_path = directory / "big.yaml", directory / "big.toml"
    yaml_path.write_text("\n".join(yaml_lines) + "\n")
    toml_path.write_text("\n".join(toml_lines))
    return yaml_path, toml_path


def load_and_compile(path: Path, py: str = PY) -> list[str]:
    code = ("import sys; from toolhost.host import load_host; "
            "h = load_host(sys.argv[1]); assert len(h.tools[\"big\"]) == 1000")
    return [py, "-c", code, str(path)]


Subjects = dict[str, tuple[Callable[[], Sample], float | None]]


def subjects_of(root: Path, yaml_path: Path, toml_path: Path) -> Subjects:
    """Each subject of the checkout at ``root`` (its .venv's python), with its target."""
    py, demo = (PY, DEMO) if root == ROOT else (
        str(root / ".venv" / "bin" / "python"), root / "examples" / "configs" / "demo.yaml")
    return {
        "python -c pass (reference)": (lambda: timed([py, "-c", "pass"], root), None),
        "toolhost --help": (lambda: timed([py, "-m", "toolhost", "--help"], root), 0.100),
        "toolhost validate demo.yaml": (
            lambda: timed([py, "-m", "toolhost", "validate", str(demo)], root), 0.300),
        "toolhost serve: first answer": (lambda: serve_first_answer(demo, py, root), 0.200),
        "1,000 tools, YAML: load + compile": (
            lambda: timed(load_and_compile(yaml_path, py), root), 0.250),
        "1,000 tools, TOML: load + compile": (
            lambda: timed(load_and_compile(toml_path, py), root), 0.250),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="another checkout (with its .venv) to run in the same rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        yaml_path, toml_path = thousand_tools(Path(tmp))
        subjects = subjects_of(ROOT, yaml_path, toml_path)
        other = subjects_of(args.against.resolve(), yaml_path, toml_path) \
            if args.against else {}
        samples: dict[str, list[Sample]] = {name: [] for name in subjects}
        theirs: dict[str, list[Sample]] = {name: [] for name in other}
        for run, _target in [*subjects.values(), *other.values()]:
            run()  # warm-up: bytecode written, files in the page cache
        for i in range(args.rounds):
            for name, (run, _target) in subjects.items():
                if name in other and i % 2:
                    theirs[name].append(other[name][0]())
                samples[name].append(run())
                if name in other and not i % 2:
                    theirs[name].append(other[name][0]())
    report(subjects, samples)
    if other:
        print(f"\nagainst {args.against}: its medians, and this checkout / it, the median of "
              "the rounds' ratios (wall, then CPU)")
        for name in other:
            pairs = list(zip(samples[name], theirs[name], strict=True))
            ratio = statistics.median(a[0] / b[0] for a, b in pairs)
            cpu_ratio = statistics.median(a[1] / b[1] for a, b in pairs if b[1] > 0)
            wall, cpu = (statistics.median(s[i] for s in theirs[name]) for i in (0, 1))
            print(f"{name:36} {wall * 1000:7.0f} ms {ratio:8.2f}x   CPU {cpu * 1000:5.0f} ms "
                  f"{cpu_ratio:6.2f}x")
    print(f"({args.rounds} interleaved rounds; load average "
          f"{os.getloadavg()[0]:.2f}: figures on a busy machine are high)")


def report(subjects: Subjects, samples: dict[str, list[Sample]]) -> None:
    reference = statistics.median(s[0] for s in samples["python -c pass (reference)"])
    print(f"{'subject':36} {'median':>9} {'target':>8} {'x python start':>15} {'CPU':>9}")
    for name, (_run, target) in subjects.items():
        median = statistics.median(s[0] for s in samples[name])
        cpu = statistics.median(s[1] for s in samples[name])
        shown = f"{target * 1000:.0f} ms" if target else "-"
        verdict = "" if target is None else ("  ok" if median <= target else "  over")
        print(f"{name:36} {median * 1000:7.0f} ms {shown:>8} {median / reference:14.1f}x"
              f" {cpu * 1000:6.0f} ms{verdict}")


if __name__ == "__main__":
    main()
