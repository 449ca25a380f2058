"""A stdio upstream's process is waited for before its transport is left: a start given up
while the child was being spawned (a connect_timeout on a loaded machine) left a process
asyncio had killed but never waited for; its exit then reached a closed event loop, and
asyncio logged "Loop ... that handles pid N is closed" into the start's one-line error."""

from __future__ import annotations

import asyncio
import asyncio.unix_events
import os
import sys
from typing import Any

import anyio
import pytest

from toolhost.gateway.transport import Wire, stdio_transport


@pytest.mark.skipif(not hasattr(asyncio.SelectorEventLoop, "_child_watcher_callback"),
                    reason="this Python's event loop is told of child exits another way")
def test_a_start_cancelled_while_spawning_waits_for_its_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spawned: set[int] = set()
    reported: set[int] = set()
    scopes: list[anyio.CancelScope] = []
    unreported: list[set[int]] = []

    class Loop(asyncio.SelectorEventLoop):
        async def subprocess_exec(self, *args: Any, **kwargs: Any) -> Any:
            scopes[0].cancel()  # the start is given up while the child is being spawned
            return await super().subprocess_exec(*args, **kwargs)

        def _child_watcher_callback(self, pid: int, returncode: int, transp: Any) -> None:
            reported.add(pid)  # the child's exit reached this loop
            super()._child_watcher_callback(pid, returncode, transp)  # type: ignore[misc]

    # the child's pid as soon as it is spawned (read from /proc a turn later, a child not
    # yet seen there on a loaded machine failed this test)
    transport_class: Any = getattr(asyncio.unix_events, "_UnixSubprocessTransport")  # noqa: B009
    started = transport_class._start

    def start_noted(self: Any, *args: Any, **kwargs: Any) -> None:
        started(self, *args, **kwargs)
        spawned.add(self._proc.pid)

    monkeypatch.setattr(transport_class, "_start", start_noted)

    async def start() -> None:
        with anyio.CancelScope() as scope:
            scopes.append(scope)
            async with stdio_transport(
                    [sys.executable, "-S", "-c", "import time; time.sleep(60)"],
                    {"PATH": os.environ.get("PATH", "")}, None, sys.stderr, Wire("h", 1 << 20)):
                await anyio.sleep(30)
        await anyio.sleep(0)  # (the exit reported in this turn would be in time as well)
        unreported.append(spawned - reported)

    anyio.run(start, backend="asyncio", backend_options={"loop_factory": Loop})
    assert spawned, "the child was not seen"
    assert unreported == [set()]  # its exit was waited for before the start came back
