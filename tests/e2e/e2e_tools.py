"""Python tools the e2e configs load (``python: e2e_tools:NAME``; PYTHONPATH has tests/e2e).

Every tool appends what it received to the JSON Lines file named by $E2E_LOG, so a test can
check side effects: the exact arguments a backend got, and that a denied call never ran.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import anyio

from toolhost.backends.base import CallContext

_started: dict[tuple[str, str], anyio.Event] = {}


def _log(**entry: Any) -> None:
    with open(os.environ["E2E_LOG"], "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")


def write_note(name: str, text: str) -> str:
    """Save a note.

    Args:
        name: The note's name.
        text: What to write.
    """
    _log(tool="write_note", name=name, text=text)
    return f"saved {name}: {text}"


async def _probe(label: str, partner: str) -> str:
    # Each probe says it started, then waits (10 s at most) for its partner to start. Run one
    # after the other, the first would end before the second began: the logged times show it.
    run = os.environ["E2E_LOG"]
    _log(tool=label, event="start", t=time.time())
    _started.setdefault((run, label), anyio.Event()).set()
    with anyio.move_on_after(10):
        await _started.setdefault((run, partner), anyio.Event()).wait()
    _log(tool=label, event="end", t=time.time())
    return f"{label} saw {partner}"


async def look() -> str:
    """Look around (read-only)."""
    return await _probe("look", "peek")


async def peek() -> str:
    """Peek around (read-only)."""
    return await _probe("peek", "look")


def explode(reason: str) -> str:
    """Always fails.

    Args:
        reason: Why.
    """
    _log(tool="explode", reason=reason)
    raise RuntimeError(reason)


async def _wait_for(path: str, seconds: float = 30.0) -> bool:
    with anyio.move_on_after(seconds):
        while not os.path.exists(path):
            await anyio.sleep(0.05)
        return True
    return False


async def grow() -> str:
    """Break the config ($E2E_BROKEN_CONFIG), wait for the test's first go-ahead file, then
    replace it with $E2E_NEXT_CONFIG and wait for the second."""
    config, go = os.environ["E2E_CONFIG"], os.environ["E2E_GO"]
    os.replace(os.environ["E2E_BROKEN_CONFIG"], config)
    if not await _wait_for(go + ".1"):
        return "no go-ahead after the broken config"
    os.replace(os.environ["E2E_NEXT_CONFIG"], config)
    _log(tool="grow")
    return "grown" if await _wait_for(go + ".2") else "no go-ahead"


async def slow() -> str:
    """Write $E2E_STARTED, then wait (60 s at most); write $E2E_CANCELLED if cancelled."""
    with open(os.environ["E2E_STARTED"], "w", encoding="utf-8") as f:
        f.write(str(os.getpid()))
    try:
        await anyio.sleep(60)
    except anyio.get_cancelled_exc_class():
        with open(os.environ["E2E_CANCELLED"], "w", encoding="utf-8") as f:
            f.write("cancelled")
        raise
    return "slept"


def chatter(ctx: CallContext) -> str:
    """Log a line every 20 ms, writing how many so far to $E2E_STARTED; stop once $E2E_GO
    exists (30 s at most)."""
    deadline = time.monotonic() + 30
    n = 0
    while not os.path.exists(os.environ["E2E_GO"]) and time.monotonic() < deadline:
        ctx.log("warning", "chatter %d", n)
        n += 1
        with open(os.environ["E2E_STARTED"] + ".tmp", "w", encoding="utf-8") as f:
            f.write(str(n))
        os.replace(os.environ["E2E_STARTED"] + ".tmp", os.environ["E2E_STARTED"])
        time.sleep(0.02)
    return f"chattered {n}"
