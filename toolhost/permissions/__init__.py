"""Allow/deny/ask rules for every tool call, compiled once."""

from toolhost.permissions.decision import Asker, Decision, Policy

__all__ = ["Asker", "Decision", "Policy"]
