"""What a tool's ``timeout`` costs each call: toolhost's deadline against anyio's.

Run:  .venv/bin/python bench/bench_call_scopes.py [--calls N] [--rounds R] [--inflight K]

A tool with a ``timeout`` runs each call under a deadline. ``anyio.fail_after`` makes a timer
on the event loop for every call (a heap entry, then cancelled); ``toolhost.deadlines``
keeps one timer per loop for all of them. In one process, on one asyncio loop, rounds
interleaved, medians printed: the cost per call of an ``await`` of a finished coroutine
(the bare reference), inside ``anyio.CancelScope()``, ``anyio.fail_after(30)`` and
``toolhost.deadlines.fail_after(30)``, one call at a time and with K calls in flight (K
deadlines armed at once, each call a task). Targets, on what each adds to the bare await:
toolhost's deadline at most half of anyio's, and within 1.5x of a plain anyio cancel scope
(the deadline itself close to free). A correctness pass checks that a deadline still fires.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections.abc import Callable
from contextlib import AbstractContextManager

import anyio

from toolhost.deadlines import cancel_scope, fail_after

Scope = Callable[[], AbstractContextManager[object] | None]

SUBJECTS: dict[str, Scope] = {
    "bare await": lambda: None,
    "anyio.CancelScope()": cancel_scope,
    "anyio.fail_after(30)": lambda: anyio.fail_after(30),
    "toolhost fail_after(30)": lambda: fail_after(30),
}


async def _tool() -> int:
    return 1


async def _one(make: Scope) -> None:
    scope = make()
    if scope is None:
        await _tool()
        return
    with scope:
        await _tool()


async def per_call(make: Scope, calls: int, inflight: int) -> float:
    """Median µs per call: sequential when ``inflight`` is 1, else per call of a batch."""
    times: list[float] = []
    if inflight == 1:
        for _ in range(calls):
            start = time.perf_counter_ns()
            await _one(make)
            times.append((time.perf_counter_ns() - start) / 1000)
    else:
        for _ in range(max(1, calls // inflight)):
            start = time.perf_counter_ns()
            await asyncio.gather(*(_one(make) for _ in range(inflight)))
            times.append((time.perf_counter_ns() - start) / 1000 / inflight)
    return statistics.median(times)


async def still_fires() -> None:
    start = time.perf_counter()
    try:
        with fail_after(0.05):
            await asyncio.sleep(5)
    except TimeoutError:
        elapsed = time.perf_counter() - start
        assert elapsed < 2, elapsed
        return
    raise SystemExit("toolhost's fail_after did not fire")


async def main_async(args: argparse.Namespace) -> None:
    await still_fires()
    results: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.rounds):
        for inflight in (1, args.inflight):
            for name, make in SUBJECTS.items():
                await per_call(make, args.calls // 10, inflight)  # warm-up
                results.setdefault((name, inflight), []).append(
                    await per_call(make, args.calls, inflight))
    print(f"{'per call, us':28} {'sequential':>11} {f'{args.inflight} in flight':>13}")
    med = {key: statistics.median(values) for key, values in results.items()}
    for name in SUBJECTS:
        print(f"{name:28} {med[(name, 1)]:11.2f} {med[(name, args.inflight)]:13.2f}")
    for inflight in (1, args.inflight):
        # what each adds to the bare await (with K in flight the tasks cost the same to all)
        bare = med[("bare await", inflight)]
        ours = med[("toolhost fail_after(30)", inflight)] - bare
        theirs = med[("anyio.fail_after(30)", inflight)] - bare
        scope = med[("anyio.CancelScope()", inflight)] - bare
        label = "sequential" if inflight == 1 else f"{inflight} in flight"
        print(f"  {label}, added to a bare await: toolhost / anyio.fail_after: "
              f"{ours / theirs:.2f}x (target <= 0.5x); toolhost / a plain cancel scope: "
              f"{ours / scope:.2f}x (target <= 1.5x)")

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--inflight", type=int, default=32)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
