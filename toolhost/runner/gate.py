"""The runner's answer to ``can_use_tool``: the permission gate, then the decision shown.

``make_gate`` builds the ``PermissionGate`` of a host: its compiled policy, the asker the
config's ``ask_mode`` calls for (``--yes`` turns every "ask" into allow, said loudly on
stderr), and the audit log if one is configured.
"""

from __future__ import annotations

import sys
from typing import Any

from toolhost.host import Host
from toolhost.permissions import (
    AuditLog,
    FixedAsker,
    PermissionGate,
    TerminalAsker,
    no_terminal_asker,
)
from toolhost.permissions.ask import terminal_available
from toolhost.permissions.decision import Asker, Decision
from toolhost.runner.render import Renderer

__all__ = ["RunnerGate", "make_gate"]

YES_WARNING = ("toolhost: --yes: every tool call the rules leave at 'ask' will be ALLOWED "
               "without asking (deny rules still apply).")


def make_gate(host: Host, *, yes: bool = False, asker: Asker | None = None) -> PermissionGate:
    perms = host.config.permissions
    if asker is None:
        if yes:
            print(YES_WARNING, file=sys.stderr, flush=True)
            asker = FixedAsker("allow", answered_by="--yes")
        elif perms.ask_mode == "allow":
            asker = FixedAsker("allow", answered_by="ask_mode: allow")
        elif perms.ask_mode == "deny":
            asker = FixedAsker("deny", answered_by="ask_mode: deny")
        elif terminal_available():
            asker = TerminalAsker(redact=host.config.redact)
        else:
            asker = no_terminal_asker()
    audit = AuditLog(perms.audit_log, redact=host.config.redact) if perms.audit_log else None
    return PermissionGate(host.policy, asker, audit, redact=host.config.redact)


class RunnerGate:
    """The control session's ``PermissionFn``: ask the gate, show the decision."""

    def __init__(self, gate: PermissionGate, renderer: Renderer) -> None:
        self.gate = gate
        self.renderer = renderer

    async def __call__(self, tool_name: str, tool_input: dict[str, Any],
                       request: dict[str, Any]) -> Decision:
        decision = await self.gate.check(tool_name, tool_input, request)
        self.renderer.decision(tool_name, tool_input, decision)
        return decision

    def close(self) -> None:
        self.gate.close()
