"""What a request's task costs, against stepping its coroutine by hand (no task at all).

Run:  .venv/bin/python bench/bench_eager_step.py [--rounds 7] [--n 20000] [--cpu 0]

An "eager path" would run a quick async tool's request coroutine with ``coro.send(None)`` as
its line is read, and answer without a task when it completes without suspending (falling
back to a task when it does suspend, as Python 3.12's eager tasks do). This prints what such
a path could save at most, per request, in process (CPU time, minimum of the rounds, from a
loop callback: outside any task, as the pipe's ``data_received`` is):

- ``task``: toolhost's way today (``RequestTasks``' ``_started_now``: the task made, its first
  step taken off the ready queue and run at once);
- ``send``: the coroutine stepped in a copy of the context, ``StopIteration`` caught;
- ``task+scope``: ``task`` with the request's anyio cancel scope entered inside, as
  ``RequestTasks._run`` does. The scope records the task it is entered in (cancellation
  by request id goes through it), so ``send`` cannot enter one: a task-less path would
  have to lend every such scope a stand-in task and move it to a real one when the
  coroutine suspends.

docs/protocol.md's thirty-fifth look reads these against a whole call's cost.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import os
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import anyio

from toolhost.protocol.tasks import _started_now

Make = Callable[[], Coroutine[Any, Any, None]]


async def _quick() -> None:
    return None


def _scoped(new_scope: type[anyio.CancelScope]) -> Make:
    async def scoped() -> None:
        with new_scope():
            return None
    return scoped


def _by_task(loop: asyncio.AbstractEventLoop, make: Make, n: int) -> None:
    for _ in range(n):
        if not _started_now(loop, make()).done():
            raise SystemExit("the task suspended: not what this bench measures")


def _by_send(make: Make, n: int) -> None:
    copy = contextvars.copy_context
    for _ in range(n):
        coro = make()
        try:
            copy().run(coro.send, None)
        except StopIteration:
            continue
        raise SystemExit("the coroutine suspended: not what this bench measures")


async def _measure(rounds: int, n: int) -> dict[str, float]:
    loop = asyncio.get_running_loop()
    new_scope = type(anyio.CancelScope())
    cases: dict[str, Callable[[], None]] = {
        "task": lambda: _by_task(loop, _quick, n),
        "send": lambda: _by_send(_quick, n),
        "task+scope": lambda: _by_task(loop, _scoped(new_scope), n),
    }
    best: dict[str, float] = {}
    for _ in range(rounds):
        for name, case in cases.items():  # interleaved, each from a loop callback
            done: asyncio.Future[float] = loop.create_future()

            def step(case: Callable[[], None] = case,
                     done: asyncio.Future[float] = done) -> None:
                start = time.process_time()
                case()
                done.set_result(time.process_time() - start)
            loop.call_soon(step)
            took = await done
            best[name] = min(best.get(name, took), took)
    return {name: took / n for name, took in best.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--cpu", type=int, default=0)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    per = asyncio.run(_measure(args.rounds, args.n))
    for name, seconds in per.items():
        print(f"{name:<11} {seconds * 1e6:6.2f} us CPU per request (min of {args.rounds})")
    print(f"a task-less step saves at most {(per['task'] - per['send']) * 1e6:.2f} us per "
          "request; the scope it cannot enter costs "
          f"{(per['task+scope'] - per['task']) * 1e6:.2f} us more")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
