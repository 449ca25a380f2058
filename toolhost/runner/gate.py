"""The runner's answer to ``can_use_tool``: the host's policy, "ask" resolved, shown to the user.

``--yes`` turns every "ask" into allow (said loudly once on stderr); otherwise an "ask" is
resolved by the config's ``ask_mode``: ``allow``, ``deny``, or ``prompt`` (a person at the
terminal when there is one; no terminal means deny, with a message saying why).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import anyio

from toolhost.permissions.decision import Asker, Decision, Policy
from toolhost.runner.render import Renderer, format_call

__all__ = ["RunnerGate", "TerminalAsker"]

YES_WARNING = ("toolhost: --yes: every tool call the rules leave at 'ask' will be ALLOWED "
               "without asking.")


class TerminalAsker:
    """Asks at the terminal (y/N); without one, denies and says so."""

    def __init__(self, interactive: bool | None = None) -> None:
        self.interactive = sys.stdin.isatty() if interactive is None else interactive
        self._lock = anyio.Lock()  # one question at a time when calls run in parallel

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision:
        if not self.interactive:
            return replace(decision, behavior="deny", answered_by="no-terminal", message=(
                decision.message or f"{tool_name} needs approval and there is no terminal to "
                "ask on; allow it with a rule, set ask_mode, or pass --yes."))
        async with self._lock:
            question = f"Allow {format_call(tool_name, tool_input)}? [y/N] "
            answer = await anyio.to_thread.run_sync(_ask_line, question,
                                                    abandon_on_cancel=True)
        if answer.strip().lower() in ("y", "yes"):
            return replace(decision, behavior="allow", answered_by="person")
        return replace(decision, behavior="deny", answered_by="person",
                       message=decision.message or "The user declined this tool call.")


def _ask_line(question: str) -> str:
    sys.stderr.write(question)
    sys.stderr.flush()
    line = sys.stdin.readline()
    return line


class RunnerGate:
    """``PermissionFn`` for the control session: decide, resolve "ask", render."""

    def __init__(self, policy: Policy, renderer: Renderer, *, yes: bool = False,
                 ask_mode: str = "prompt", asker: Asker | None = None) -> None:
        self.policy = policy
        self.renderer = renderer
        self.yes = yes
        self.ask_mode = ask_mode
        self.asker = asker or TerminalAsker()
        if yes:
            print(YES_WARNING, file=sys.stderr, flush=True)

    async def __call__(self, tool_name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision:
        decision = self.policy.decide(tool_name, tool_input)
        if decision.behavior == "ask":
            decision = await self._resolve(tool_name, tool_input, decision)
        self.renderer.decision(tool_name, tool_input, decision)
        return decision

    async def _resolve(self, tool_name: str, tool_input: Mapping[str, Any],
                       decision: Decision) -> Decision:
        if self.yes:
            return replace(decision, behavior="allow", answered_by="--yes")
        if self.ask_mode == "allow":
            return replace(decision, behavior="allow", answered_by="ask_mode")
        if self.ask_mode == "deny":
            return replace(decision, behavior="deny", answered_by="ask_mode",
                           message=decision.message or f"{tool_name} is not allowed here "
                           "(ask_mode: deny).")
        return await self.asker.ask(tool_name, tool_input, decision)
