"""Allow/deny/ask rules for every tool call, compiled once.

``compile_policy(config.permissions)`` gives a ``CompiledPolicy`` whose ``decide(name, input)``
is pure and fast; ``PermissionGate.from_config(config)`` adds the asker (a person at the
terminal, ``--yes``, or deny) and the audit log. See docs/permissions.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.permissions.ask import FixedAsker, TerminalAsker, no_terminal_asker
    from toolhost.permissions.audit import AuditLog
    from toolhost.permissions.authoring.lint import LintFinding, lint_policy
    from toolhost.permissions.decision import Asker, Decision, Policy
    from toolhost.permissions.gate import PermissionGate
    from toolhost.permissions.policy import CompiledPolicy, compile_policy

# Loaded on first use: ``validate`` reads rules without the gate, the asker (anyio) and the
# audit log, and importing a submodule runs this file first.
_LAZY = {"FixedAsker": "ask", "TerminalAsker": "ask", "no_terminal_asker": "ask",
         "AuditLog": "audit", "Asker": "decision", "Decision": "decision", "Policy": "decision",
         "PermissionGate": "gate", "LintFinding": "authoring.lint", "lint_policy": "authoring.lint",
         "CompiledPolicy": "policy", "compile_policy": "policy"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"toolhost.permissions.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'toolhost.permissions' has no attribute '{name}'")


__all__ = [
    "Asker",
    "AuditLog",
    "CompiledPolicy",
    "Decision",
    "FixedAsker",
    "LintFinding",
    "PermissionGate",
    "Policy",
    "TerminalAsker",
    "compile_policy",
    "lint_policy",
    "no_terminal_asker",
]
