"""Questions reach the asker in the order their checks began, also when rules read files
(``PermissionGate.check`` decides those in a thread): ``toolhost.permissions.ask_order``."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from toolhost.permissions import PermissionGate
from toolhost.permissions.decision import Decision

pytestmark = pytest.mark.anyio


class SlowReads:
    """Rules that ask about every call; deciding a call whose ``text`` starts with ``slow``
    reads files (in a thread) and waits until ``go`` is set; ``reads`` names the others that
    read files too (quick)."""

    def __init__(self, reads: bool) -> None:
        self.go = threading.Event()
        self.reads = reads

    def reads_files(self, tool_name: str, tool_input: Mapping[str, Any]) -> bool:
        return self.reads or str(tool_input["text"]).startswith("slow")

    def decide(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision:
        if str(tool_input["text"]).startswith("slow"):
            assert self.go.wait(30)
        return Decision("ask")


class Person:
    """Answers allow at once, noting the order of the questions."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        self.asked.append(tool_input["text"])
        return Decision("allow", answered_by="person")


@pytest.mark.parametrize("reads", [False, True], ids=["decided-at-once", "quick-read"])
@pytest.mark.parametrize("cancelled", [False, True], ids=["answered", "cancelled"])
async def test_a_question_waits_for_the_check_that_began_before_it(reads: bool,
                                                                  cancelled: bool) -> None:
    # R25's left: the slow check's rules read files in a thread; the call after it was
    # asked first. A check cancelled while it waits its turn holds nobody up.
    rules, person = SlowReads(reads), Person()
    gate = PermissionGate(rules, person)  # type: ignore[arg-type]
    second = anyio.CancelScope()

    def waiting() -> bool:  # a check waits its turn (old code: none ever did)
        return bool(getattr(getattr(gate, "_order", None), "_waiting", None))

    async def check(text: str, scope: anyio.CancelScope | None = None) -> None:
        with scope or anyio.CancelScope():
            await gate.check("mcp__kb__note", {"text": text})

    async with anyio.create_task_group() as tg:
        tg.start_soon(check, "slow")
        await anyio.lowlevel.checkpoint()  # the slow one began first
        tg.start_soon(check, "second", second)
        # the second is decided: it is asked (the old order) or waits its turn
        while not person.asked and not waiting():
            await anyio.lowlevel.checkpoint()
        if cancelled:
            second.cancel()
            while waiting():
                await anyio.lowlevel.checkpoint()
            tg.start_soon(check, "third")
        rules.go.set()
    assert person.asked == (["slow", "third"] if cancelled else ["slow", "second"])
