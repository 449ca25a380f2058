"""Start-up of fresh processes: what a person waits for before toolhost answers.

Run:  .venv/bin/python bench/bench_startup.py [--rounds N]

Each subject is a new process, started ``--rounds`` times in interleaved order (so a busy
moment of a shared machine hits every subject alike); the medians are printed with the
issue's targets and, as a reference measured in the same rounds, a bare ``python -c pass``
(the interpreter's own start, which no Python program can beat):

- ``toolhost --help``                      target <= 100 ms
- ``toolhost validate`` of examples/configs/demo.yaml   target <= 300 ms
- ``toolhost serve`` (stdio) until it answers ``initialize``   target <= 200 ms
- loading and compiling 1,000 tools (YAML, TOML) in a fresh process   target <= 250 ms
"""

from __future__ import annotations

import argparse
import json
import os
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


def timed(argv: list[str], **kw: object) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   cwd=ROOT, env=ENV, **kw)  # type: ignore[call-overload]
    return time.perf_counter() - start


def serve_first_answer(config: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen([PY, "-m", "toolhost", "serve", str(config), "--all"], cwd=ROOT,
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
    return elapsed


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


def load_and_compile(path: Path) -> list[str]:
    code = ("import sys; from toolhost.host import load_host; "
            "h = load_host(sys.argv[1]); assert len(h.tools[\"big\"]) == 1000")
    return [PY, "-c", code, str(path)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=11)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        yaml_path, toml_path = thousand_tools(Path(tmp))
        subjects: dict[str, tuple[Callable[[], float], float | None]] = {
            "python -c pass (reference)": (lambda: timed([PY, "-c", "pass"]), None),
            "toolhost --help": (lambda: timed([PY, "-m", "toolhost", "--help"]), 0.100),
            "toolhost validate demo.yaml": (
                lambda: timed([PY, "-m", "toolhost", "validate", str(DEMO)]), 0.300),
            "toolhost serve: first answer": (lambda: serve_first_answer(DEMO), 0.200),
            "1,000 tools, YAML: load + compile": (
                lambda: timed(load_and_compile(yaml_path)), 0.250),
            "1,000 tools, TOML: load + compile": (
                lambda: timed(load_and_compile(toml_path)), 0.250),
        }
        samples: dict[str, list[float]] = {name: [] for name in subjects}
        for run, _target in subjects.values():
            run()  # warm-up: bytecode written, files in the page cache
        for _ in range(args.rounds):
            for name, (run, _target) in subjects.items():
                samples[name].append(run())
    reference = statistics.median(samples["python -c pass (reference)"])
    print(f"{'subject':36} {'median':>9} {'target':>8} {'x python start':>15}")
    for name, (_run, target) in subjects.items():
        median = statistics.median(samples[name])
        shown = f"{target * 1000:.0f} ms" if target else "-"
        verdict = "" if target is None else ("  ok" if median <= target else "  over")
        print(f"{name:36} {median * 1000:7.0f} ms {shown:>8} {median / reference:14.1f}x"
              f"{verdict}")
    print(f"({args.rounds} interleaved rounds; load average "
          f"{os.getloadavg()[0]:.2f}: figures on a busy machine are high)")


if __name__ == "__main__":
    main()
