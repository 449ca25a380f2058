"""What the bounded decode (toolhost/mcp/wire.py) costs over a bare ``json.loads``.

    python bench/bench_wire.py [--runs 7] [--loops 2000]

For three messages (a small tools/call, a 100 KB argument string, an array of 5,000 small
objects: the last takes the careful depth scan because it has more brackets than the limit)
print the median time of ``json.loads`` and of ``wire.decode`` (size check, depth scan,
parse with the NaN/overflow hooks) and their ratio. Ratios, not absolute times, are what
carry from one machine to another.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from toolhost.mcp import wire


def message(arguments: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                       "params": {"name": "echo", "arguments": arguments}}).encode()


MESSAGES = {
    "small call": message({"text": "hello", "times": 2}),
    "100 KB string": message({"text": "x" * 100_000}),
    "5,000 objects": message({"rows": [{"id": i, "name": f"row {i}", "tags": ["a", "b"]}
                                       for i in range(5000)]}),
}


def median_time(fn: Callable[[bytes], Any], data: bytes, runs: int, loops: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(loops):
            fn(data)
        times.append((time.perf_counter() - start) / loops)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--loops", type=int, default=2000)
    args = parser.parse_args()
    print(f"{'message':<16}{'bytes':>10}{'json.loads':>14}{'wire.decode':>14}{'ratio':>8}")
    for name, data in MESSAGES.items():
        loops = max(1, args.loops * 200 // max(len(data) // 100, 200))
        bare = median_time(json.loads, data, args.runs, loops)
        bounded = median_time(wire.decode, data, args.runs, loops)
        print(f"{name:<16}{len(data):>10,}{bare * 1e6:>12.1f}us{bounded * 1e6:>12.1f}us"
              f"{bounded / bare:>8.2f}")


if __name__ == "__main__":
    main()
