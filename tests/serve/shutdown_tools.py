"""Slow tools for the shutdown tests (tests/serve/test_shutdown_answers)."""

from __future__ import annotations

import time

import anyio


async def nap(seconds: float) -> str:
    """Sleep (async), then say so.

    Args:
        seconds: how long
    """
    await anyio.sleep(seconds)
    return f"slept {seconds:g}"


def doze(seconds: float) -> str:
    """Sleep (in a worker thread), then say so.

    Args:
        seconds: how long
    """
    time.sleep(seconds)
    return f"slept {seconds:g}"
