"""The runner's answer to ``can_use_tool``: the permission gate, then the decision shown.

``make_gate`` builds the ``PermissionGate`` of a host with ``PermissionGate.from_config``
(the one place the asker is chosen: ``ask_mode``, the terminal, ``--yes``, which it says
loudly on stderr), reusing the host's compiled policy.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from toolhost.host import Host
from toolhost.permissions import PermissionGate
from toolhost.permissions.decision import Asker, Decision
from toolhost.runner.render import Renderer

__all__ = ["RunnerGate", "make_gate"]

log = logging.getLogger("toolhost.runner")


def make_gate(host: Host, *, yes: bool = False, asker: Asker | None = None) -> PermissionGate:
    """The host's gate: its compiled policy, the asker its config calls for, its audit log."""
    return PermissionGate.from_config(host.config, assume_yes=yes, policy=host.policy,
                                      asker=asker)


class RunnerGate:
    """The control session's ``PermissionFn``: ask the gate, show the decision."""

    def __init__(self, gate: PermissionGate, renderer: Renderer) -> None:
        self.gate = gate
        self.renderer = renderer

    async def __call__(self, tool_name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision:
        return self._shown(tool_name, tool_input, request,
                           await self.gate.check(tool_name, tool_input, request))

    def decide_now(self, tool_name: str, tool_input: dict[str, Any],
                   request: dict[str, Any]) -> Decision | None:
        """The same without a pause, or None for an "ask" (see ``DecideNowFn``).

        The decision is shown just after (the next turn of the event loop, before any later
        message): the CLI's answer goes out first, the screen is not what it waits for."""
        decision = self.gate.check_now(tool_name, tool_input, request)
        if decision is not None:
            asyncio.get_running_loop().call_soon(self._shown, tool_name, tool_input, request,
                                                 decision)
        return decision

    def _shown(self, tool_name: str, tool_input: dict[str, Any], request: dict[str, Any],
               decision: Decision) -> Decision:
        tool_use_id = request.get("tool_use_id")
        try:
            self.renderer.decision(tool_name, decision,
                                   tool_use_id=tool_use_id if isinstance(tool_use_id, str)
                                   else None)
        except OSError as exc:  # the screen went away (SIGHUP, a closed pipe): still answer
            log.debug("showing a decision failed: %r", exc)
        return decision

    def close(self) -> None:
        self.gate.close()
