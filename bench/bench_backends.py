"""What each backend adds over the bare operation it wraps.

    python bench/bench_backends.py [--runs 7] [--calls 200]

For each kind, time ``--calls`` calls ``--runs`` times and print the median per-call time of:

- python:  a direct call of ``toolhost.demo.add`` / an await of an async function, versus a
           ``CompiledTool.call`` through the python backend (validation, worker thread for the
           sync one, result mapping, output shaping);
- command: a bare ``anyio.run_process(["true"])``, versus the command backend running ``true``
           (argv rendering, process group, capped reads, shaping);
- http:    a bare ``httpx.AsyncClient.get`` to a local server, versus the http backend (URL
           template and checks, streaming with a size cap, JSON mapping, shaping).

The local HTTP server is the standard library's, in a thread on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from collections.abc import Awaitable, Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import anyio
import httpx

from toolhost import demo
from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import BackendSpec, HostConfig, ServerConfig, ServerDefaults, ToolConfig


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: avoid delayed-ACK stalls
    body = json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(20)]}).encode()

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, format: str, *args: Any) -> None:
        return None


def config(base_url: str) -> HostConfig:
    def tool(name: str, kind: str, options: dict[str, Any]) -> ToolConfig:
        return ToolConfig(name=name, server="bench", backend=BackendSpec(kind, options))

    tools = {t.name: t for t in (
        tool("add", "python", {"function": "toolhost.demo:add"}),
        tool("aadd", "python", {"function": "toolhost.demo:slow_count"}),
        tool("true", "command", {"argv": ["true"]}),
        tool("get", "http", {"url": "items/{id}"}),
    )}
    return HostConfig(version=1, servers={"bench": ServerConfig(
        name="bench", tools=tools, defaults=ServerDefaults(base_url=base_url))})


async def per_call(fn: Callable[[], Awaitable[Any]], calls: int, runs: int) -> float:
    """Median over ``runs`` of the mean seconds per call."""
    await fn()  # warm up (imports, pools, first connection)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(calls):
            await fn()
        samples.append((time.perf_counter() - start) / calls)
    return statistics.median(samples)


def row(name: str, bare: float, backend: float) -> str:
    return (f"{name:<8} bare {bare * 1e6:10.1f} us   backend {backend * 1e6:10.1f} us   "
            f"overhead {(backend - bare) * 1e6:10.1f} us")


async def main(runs: int, calls: int) -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}/"
    ctx = CallContext()
    try:
        async with compile_tools(config(base)) as compiled, \
                httpx.AsyncClient(trust_env=False) as client:
            add = compiled.tool("bench", "add")
            aadd = compiled.tool("bench", "aadd")
            true = compiled.tool("bench", "true")
            get = compiled.tool("bench", "get")

            async def direct_add() -> Any:
                return demo.add(2, 3)

            async def direct_async() -> Any:
                return await demo.slow_count(to=1, delay=0, ctx=ctx)

            async def bare_spawn() -> Any:
                return await anyio.run_process(["true"])

            async def bare_get() -> Any:
                response = await client.get(base + "items/7")
                return response.json()

            print(f"median per call, {runs} runs")
            print(row("python", await per_call(direct_add, calls * 10, runs),
                      await per_call(lambda: add.call({"a": 2, "b": 3}, ctx), calls * 10,
                                     runs)))
            print(row("async", await per_call(direct_async, calls * 10, runs),
                      await per_call(lambda: aadd.call({"to": 1, "delay": 0}, ctx),
                                     calls * 10, runs)))
            print(row("command", await per_call(bare_spawn, calls // 4, runs),
                      await per_call(lambda: true.call({}, ctx), calls // 4, runs)))
            print(row("http", await per_call(bare_get, calls, runs),
                      await per_call(lambda: get.call({"id": "7"}, ctx), calls, runs)))
    finally:
        httpd.shutdown()
        httpd.server_close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    options = parser.parse_args()
    anyio.run(main, options.runs, options.calls)
