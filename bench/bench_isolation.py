"""What ``isolation: process`` costs per call, against the same tool in-process.

    python bench/bench_isolation.py [--runs 7] [--calls 200]

Times ``--calls`` sequential calls of ``toolhost.demo:add`` through ``CompiledTool.call``,
``--runs`` times, in three ways, and prints the median per-call time and the ratio to the
in-process sync call:

- in-process: the sync function in toolhost's thread pool;
- process:    the same function in a warm worker process (one JSON line each way);
- first call: starting a worker (a fresh interpreter importing the tool), once per run.

Numbers, not pass/fail: the machine is shared, so read the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import anyio

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import BackendSpec, HostConfig, ServerConfig, ToolConfig


def config() -> HostConfig:
    def tool(name: str, options: dict[str, Any]) -> ToolConfig:
        return ToolConfig(name=name, server="bench", backend=BackendSpec("python", options))

    tools = {t.name: t for t in (
        tool("inproc", {"function": "toolhost.demo:add"}),
        tool("isolated", {"function": "toolhost.demo:add", "isolation": "process"}),
    )}
    return HostConfig(version=1, servers={"bench": ServerConfig(name="bench", tools=tools)})


async def main(runs: int, calls: int) -> None:
    per_call: dict[str, list[float]] = {"in-process": [], "process": []}
    first: list[float] = []
    ctx = CallContext(tool="bench")
    for _ in range(runs):
        async with compile_tools(config()) as compiled:
            inproc, isolated = compiled.tool("bench", "inproc"), compiled.tool("bench", "isolated")
            started = time.perf_counter()
            result = await isolated.call({"a": 1, "b": 2}, ctx)
            first.append(time.perf_counter() - started)
            assert result.text_content in ("3", "3.0"), result
            for name, tool in (("in-process", inproc), ("process", isolated)):
                started = time.perf_counter()
                for i in range(calls):
                    await tool.call({"a": i, "b": 1}, ctx)
                per_call[name].append((time.perf_counter() - started) / calls)
    base = statistics.median(per_call["in-process"])
    print(f"{'mode':<12} {'median per call':>16} {'vs in-process':>14}")
    for name, times in per_call.items():
        median = statistics.median(times)
        print(f"{name:<12} {median * 1e6:>13.0f} µs {median / base:>13.1f}x")
    print(f"{'first call':<12} {statistics.median(first) * 1e3:>13.0f} ms "
          f"{statistics.median(first) / base:>13.0f}x  (starts the worker)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    anyio.run(main, args.runs, args.calls)
