"""A stdio upstream's process is waited for before its transport is left: a start given up
while the child was being spawned (a connect_timeout on a loaded machine) left a process
asyncio had killed but never waited for; its exit then reached a closed event loop, and
asyncio logged "Loop ... that handles pid N is closed" into the start's one-line error."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.gateway.transport import Wire, stdio_transport

MARK = "toolhost-test-spawn-mark"


def _children_marked() -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and MARK.encode() in (entry / "cmdline").read_bytes() \
                    and (entry / "stat").read_text().split()[3] == str(os.getpid()):
                found.add(int(entry.name))
        except OSError:
            continue
    return found


@pytest.mark.skipif(not hasattr(asyncio.SelectorEventLoop, "_child_watcher_callback"),
                    reason="this Python's event loop is told of child exits another way")
def test_a_start_cancelled_while_spawning_waits_for_its_process() -> None:
    spawned: set[int] = set()
    reported: set[int] = set()
    scopes: list[anyio.CancelScope] = []
    unreported: list[set[int]] = []

    class Loop(asyncio.SelectorEventLoop):
        async def subprocess_exec(self, *args: Any, **kwargs: Any) -> Any:
            scopes[0].cancel()  # the start is given up while the child is being spawned
            self.call_soon(lambda: spawned.update(_children_marked()))
            return await super().subprocess_exec(*args, **kwargs)

        def _child_watcher_callback(self, pid: int, returncode: int, transp: Any) -> None:
            reported.add(pid)  # the child's exit reached this loop
            super()._child_watcher_callback(pid, returncode, transp)  # type: ignore[misc]

    async def start() -> None:
        with anyio.CancelScope() as scope:
            scopes.append(scope)
            async with stdio_transport(
                    [sys.executable, "-S", "-c", "import time; time.sleep(60)", MARK],
                    {"PATH": os.environ.get("PATH", "")}, None, sys.stderr, Wire("h", 1 << 20)):
                await anyio.sleep(30)
        await anyio.sleep(0)  # (the exit reported in this turn would be in time as well)
        unreported.append(spawned - reported)

    anyio.run(start, backend="asyncio", backend_options={"loop_factory": Loop})
    assert spawned, "the child was not seen"
    assert unreported == [set()]  # its exit was waited for before the start came back
