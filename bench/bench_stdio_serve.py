"""What the stdio transport of ``toolhost serve`` costs per request: a round trip through
``StdioServer`` over real OS pipes, with a handler that answers at once (so the transport is
all that is timed: reading the line, decoding, the task, encoding, writing the answer).

    python bench/bench_stdio_serve.py [--runs 7] [--requests 2000]

Prints the median microseconds per request for requests sent one at a time (each answer
read before the next is sent: the latency of the write path) and for a burst of
``--requests`` sent at once (throughput).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import threading
import time
from collections.abc import Hashable, Mapping
from typing import Any

import anyio

from toolhost.serve.stdio import StdioServer


class Answer:
    async def handle(self, message: Mapping[str, Any], *, notify: Any = None,
                     peer: Hashable = None) -> dict[str, Any] | None:
        if "id" not in message:
            return None
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"ok": True}}


def run(requests: int, one_at_a_time: bool) -> float:
    """Seconds per request."""
    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    reader = os.fdopen(to_server_r, "rb")
    writer = os.fdopen(from_server_w, "wb", buffering=0)
    server = StdioServer(Answer(), reader, writer, grace=0.1)
    thread = threading.Thread(target=anyio.run, args=(server.run,), daemon=True)
    thread.start()
    out = os.fdopen(to_server_w, "wb", buffering=0)
    answers = os.fdopen(from_server_r, "rb")
    lines = [json.dumps({"jsonrpc": "2.0", "id": i, "method": "ping"}).encode() + b"\n"
             for i in range(requests)]
    start = time.perf_counter()
    if one_at_a_time:
        for line in lines:
            out.write(line)
            answers.readline()
    else:
        out.write(b"".join(lines))
        for _ in lines:
            answers.readline()
    elapsed = time.perf_counter() - start
    out.close()
    thread.join(10)
    answers.close()
    writer.close()
    return elapsed / requests


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    for label, one in (("one at a time", True), ("burst", False)):
        times = [run(args.requests, one) for _ in range(args.runs)]
        print(f"{label:14} {statistics.median(times) * 1e6:8.1f} us per request "
              f"(min {min(times) * 1e6:.1f})")


if __name__ == "__main__":
    main()
