"""A tool held in flight until the test lets it go (tests/serve/test_in_flight): the test
waits for what it needs (N calls running) and releases them, instead of sleeping through a
tool's fixed delay."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import anyio


async def held(gate: str) -> str:
    """Note the call as running in ``gate``, then wait until ``gate/open`` exists.

    Args:
        gate: a directory the test owns
    """
    folder = Path(gate)
    (folder / f"entered-{uuid.uuid4().hex}").touch()
    while not (folder / "open").exists():
        await anyio.sleep(0.01)
    return "released"


def wait_entered(gate: Path, count: int, timeout: float = 30.0) -> None:
    """Until ``count`` calls of ``held`` are running (or AssertionError after ``timeout``)."""
    deadline = time.monotonic() + timeout
    while len(list(gate.glob("entered-*"))) < count:
        assert time.monotonic() < deadline, f"{count} held calls never started"
        time.sleep(0.01)


def release(gate: Path) -> None:
    """Let every held call (running or still to come) answer."""
    (gate / "open").touch()
