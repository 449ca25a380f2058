"""A real pseudo-terminal for ``Terminal`` tests, and the "wait for the read, then type"
helpers they share."""

from __future__ import annotations

import os
import pty
import select
import time
from collections.abc import Iterator

import anyio
import pytest

from toolhost.runner.terminal import Terminal


def _terminal(paste: bool) -> Iterator[tuple[int, Terminal]]:
    master, slave = pty.openpty()
    try:
        yield master, Terminal(slave, slave, paste=paste)
    finally:
        os.close(master)
        os.close(slave)


@pytest.fixture
def tty() -> Iterator[tuple[int, Terminal]]:
    """A ``Terminal`` on a fresh pty without paste marks (marks: ``pasting``), and its master."""
    yield from _terminal(False)


@pytest.fixture
def pasting() -> Iterator[tuple[int, Terminal]]:
    """A ``Terminal`` on a fresh pty with paste marks on, and its master."""
    yield from _terminal(True)


def shown(master: int, until: str | None = None) -> str:
    """All the terminal has shown so far (echo and writes arrive in separate reads): read
    until nothing comes for 0.3 s, or, with ``until``, as soon as that text has come (at most
    10 s; what comes with it is read too)."""
    data = b""
    deadline = time.monotonic() + 10
    while until is None or until not in data.decode(errors="replace"):
        wait = 0.3 if until is None else max(0.0, deadline - time.monotonic())
        if not select.select([master], [], [], wait)[0]:
            break
        data += os.read(master, 65536)
    while until is not None and select.select([master], [], [], 0.02)[0]:
        data += os.read(master, 65536)
    return data.decode(errors="replace")


async def type_at_question(master: int, term: Terminal, typed: bytes,
                           settle: float = 0.0) -> None:
    """Wait until ``term`` asks a question, then type ``typed`` at it (after ``settle`` s)."""
    while not term.question:
        await anyio.sleep(0.01)
    if settle:
        await anyio.sleep(settle)
    os.write(master, typed)


async def type_at_prompt(master: int, term: Terminal, typed: bytes) -> None:
    """Wait until ``term`` reads a turn (not a question), then type ``typed``."""
    while term._scope is None or term.question:
        await anyio.sleep(0.01)
    os.write(master, typed)


async def withdraw_question(term: Terminal) -> None:
    """Ask a question and cancel it from outside once it is shown (the CLI withdrew it)."""
    async with anyio.create_task_group() as tg:
        async def ask() -> None:
            await term.readline("Allow? ", question=True)
        tg.start_soon(ask)
        while not term.question:
            await anyio.sleep(0.01)
        tg.cancel_scope.cancel()
