"""Faulty tools for tests/serve/test_faulty_tools.py (imported by the `toolhost serve` under
test), plus honest ones."""
from __future__ import annotations

import ctypes
import os
import sys
import time

import anyio


def hang() -> str:
    """Blocked in C: cannot be stopped in-process."""
    time.sleep(3600)
    return "never"


def spin() -> str:
    """A busy loop."""
    while True:
        pass


def recurse(n: int = 10**7) -> int:
    """A deep recursion, the limit raised first."""
    sys.setrecursionlimit(10**8)

    def down(k: int) -> int:
        return 0 if k == 0 else down(k - 1) + 1
    return down(n)


def huge() -> dict[str, list[str]]:
    """About 200 MB of JSON."""
    row = "x" * 100
    return {"rows": [row] * 2_000_000}


def giant() -> str:
    """A 200 MB string."""
    return "y" * 200_000_000


def segfault() -> str:
    """Crashes the process it runs in."""
    ctypes.string_at(0)
    return "never"


def echo(text: str) -> str:
    """An honest sync tool."""
    return text


async def aecho(text: str) -> str:
    """An honest async tool."""
    await anyio.sleep(0)
    return text


def pid() -> int:
    """The serving process."""
    return os.getpid()
