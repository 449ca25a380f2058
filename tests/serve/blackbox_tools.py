"""Tools for the black-box serve tests (imported by the `toolhost serve` under test)."""
from __future__ import annotations

from typing import TypedDict

import anyio

from toolhost.backends.base import CallContext


def echo(text: str, times: int = 1) -> str:
    """Repeat a text.

    Args:
        text: what to repeat
        times: how many times
    """
    return " ".join([text] * times)


class Sum(TypedDict):
    total: float
    count: int


def summarize(values: list[float]) -> Sum:
    """Sum a list of numbers."""
    return {"total": sum(values), "count": len(values)}


def boom(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(f"boom: {reason}")


async def slow(seconds: float = 0.2, steps: int = 3, *, ctx: CallContext) -> str:
    """Sleep with progress."""
    for i in range(steps):
        await anyio.sleep(seconds / steps)
        await ctx.progress(i + 1, steps, f"step {i + 1}")
    return f"slept {seconds}"


async def hang(*, ctx: CallContext) -> str:
    """Never returns unless cancelled."""
    await anyio.sleep(3600)
    return "never"


def secret(key: str) -> str:
    """Returns a secret."""
    return f"secret {key}"


async def watched(marker: str, seconds: float = 3600) -> str:
    """Sleep; write "cancelled" to ``marker`` when cancelled, "done" when it finishes (and
    create ``marker``.started first: the call is running)."""
    with open(f"{marker}.started", "w"):
        pass
    try:
        await anyio.sleep(seconds)
    except BaseException:
        with open(marker, "w") as f:
            f.write("cancelled")
        raise
    with open(marker, "w") as f:
        f.write("done")
    return f"slept {seconds:g}"
