"""Allow/deny/ask rules for every tool call, compiled once.

``compile_policy(config.permissions)`` gives a ``CompiledPolicy`` whose ``decide(name, input)``
is pure and fast; ``PermissionGate.from_config(config)`` adds the asker (a person at the
terminal, ``--yes``, or deny) and the audit log. See docs/permissions.md.
"""

from toolhost.permissions.ask import FixedAsker, TerminalAsker, no_terminal_asker
from toolhost.permissions.audit import AuditLog
from toolhost.permissions.decision import Asker, Decision, Policy
from toolhost.permissions.gate import PermissionGate
from toolhost.permissions.lint import LintFinding, lint_policy
from toolhost.permissions.policy import CompiledPolicy, compile_policy

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
