"""One python tool's call in process: an ``async def``, a ``def`` in the pool, and the same
``def`` under ``blocking: false`` (run on the event loop).

Run:  .venv/bin/python bench/bench_inline_call.py [--calls 5000] [--rounds 5] [--cpu 0]

``CompiledTool.call`` of each (the argument check, the host guards, the call, the result
shaped), timed by CPU time (``time.process_time``: the pool thread's share counts too),
interleaved rounds, the minimum per call printed. What the sync pool's hand-off costs a
trivial tool, without the transport, the MCP core or the second lock around it
(``bench_run.py --subjects async,sync,inline`` has the whole round trip).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config

TOOLS = '''
async def greet(name: str) -> str:
    return f"Hello, {name}!"


def greet_sync(name: str) -> str:
    return f"Hello, {name}!"
'''

CONFIG = """toolhost: 1
servers:
  demo:
    tools:
      greet: {python: 'bench_inline_tools:greet'}
      greet_sync: {python: 'bench_inline_tools:greet_sync'}
      greet_inline: {python: {function: 'bench_inline_tools:greet_sync', blocking: false}}
"""

NAMES = {"greet": "async def", "greet_sync": "def, pool", "greet_inline": "def, inline"}


async def measure(directory: Path, calls: int, rounds: int) -> dict[str, float]:
    (directory / "bench_inline_tools.py").write_text(TOOLS)
    (directory / "bench.yaml").write_text(CONFIG)
    compiled = compile_tools(load_config(str(directory / "bench.yaml")))
    best: dict[str, float] = {}
    try:
        for _ in range(rounds):
            for name in NAMES:
                tool = compiled.tool("demo", name)
                ctx = CallContext(tool=name)
                start = time.process_time()
                for _ in range(calls):
                    result = await tool.call({"name": "n"}, ctx)
                took = (time.process_time() - start) / calls
                if result.text_content != "Hello, n!":
                    raise SystemExit(f"{name}: wrong answer {result.text_content!r}")
                best[name] = min(best.get(name, took), took)
    finally:
        await compiled.aclose()
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cpu", type=int, default=0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    with tempfile.TemporaryDirectory() as tmp:
        best = asyncio.run(measure(Path(tmp), args.calls, args.rounds))
    for name, label in NAMES.items():
        print(f"{label:<12} {best[name] * 1e6:6.2f} us CPU per call (min of {args.rounds})")
    print(f"inline / pool: {best['greet_inline'] / best['greet_sync']:.2f}x, "
          f"inline / async def: {best['greet_inline'] / best['greet']:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
