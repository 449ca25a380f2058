"""Instructions of fresh start-up processes, counted by valgrind: an A/B that load cannot move.

Run:  .venv/bin/python bench/bench_startup_instructions.py --against OTHER_TREE
                                                            [--subjects validate,serve,...]

``bench_startup.py`` times the same subjects; on a shared machine its wall and even its CPU
figures move by more than a start-up change is worth. This counts the instructions of each
fresh process under ``valgrind --tool=cachegrind --cache-sim=no`` (``PYTHONHASHSEED=0``; a
start-up is almost all imports, whose count repeats within ~0.5%): this tree and
``OTHER_TREE`` (a ``git archive`` of another commit's ``toolhost/``), each first on
``PYTHONPATH`` and run by this checkout's interpreter from outside both trees (from inside
one, ``-m toolhost`` imports that one whatever ``PYTHONPATH`` says). Subjects:

- ``help``: ``toolhost --help``
- ``validate``: ``toolhost validate -q`` of examples/configs/demo.yaml
- ``serve``: ``toolhost serve`` of the demo over stdio, one ``initialize``, then EOF
- ``yaml1000``, ``toml1000``: ``load_host`` of bench_startup's 1,000 tools
- ``pass``: ``python -c pass`` (the interpreter's own start)

Instructions are not time (a regex compile runs about twice as many per millisecond as an
import's file work): read them with ``bench_startup.py``'s figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve()
ROOT = HERE.parents[1]
DEMO = ROOT / "examples" / "configs" / "demo.yaml"
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "bench", "version": "1"}}}) + "\n"
LOAD = ("import sys; from toolhost.host import load_host; h = load_host(sys.argv[1]); "
        "assert len(h.tools['big']) == 1000")


def subjects(yaml_path: Path, toml_path: Path) -> dict[str, tuple[list[str], str | None]]:
    """Each subject's interpreter arguments and what it reads on stdin."""
    return {"pass": (["-c", "pass"], None),
            "help": (["-m", "toolhost", "--help"], None),
            "validate": (["-m", "toolhost", "validate", "-q", str(DEMO)], None),
            "serve": (["-m", "toolhost", "serve", str(DEMO), "--all"], INIT),
            "yaml1000": (["-c", LOAD, str(yaml_path)], None),
            "toml1000": (["-c", LOAD, str(toml_path)], None)}


def count(tree: Path, argv: list[str], stdin: str | None, tmp: Path) -> int:
    """Instructions of one fresh process with ``tree`` first on ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(tree), PYTHONHASHSEED="0")
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           f"--cachegrind-out-file={tmp / 'cg.out'}", sys.executable, *argv],
                          input=stdin, text=True, env=env, cwd=tmp, capture_output=True,
                          timeout=900, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, metavar="DIR")
    parser.add_argument("--subjects", default="help,validate,serve,yaml1000,toml1000")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE.parent))
    from bench_startup import thousand_tools

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        table = subjects(*thousand_tools(tmp))
        for subject in args.subjects.split(","):
            argv, stdin = table[subject]
            for tree in (ROOT, args.against):  # bytecode written before counting
                count(tree, argv, stdin, tmp)
            ours, theirs = (count(tree, argv, stdin, tmp) for tree in (ROOT, args.against))
            print(f"{subject:9} this {ours / 1e6:8.1f} M   other {theirs / 1e6:8.1f} M   "
                  f"this/other {ours / theirs:.3f}", flush=True)


if __name__ == "__main__":
    main()
