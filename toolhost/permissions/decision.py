"""The answer to "may this tool run with this input?" and who gives it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from toolhost.config.model import Origin

__all__ = ["Asker", "Behavior", "Decision", "Policy"]

Behavior = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class Decision:
    """A permission decision and the rule that made it (None: the configured default)."""

    behavior: Behavior
    message: str = ""
    updated_input: Mapping[str, Any] | None = None
    rule: str | None = None  # the rule as written, e.g. "mcp__git__*" or "deny mcp__x__y when ..."
    origin: Origin | None = None  # file:line of the rule
    answered_by: str = "policy"  # policy | default | person | no-terminal | --yes
    error: str = ""  # why the deciding rule could not be evaluated (the decision is a deny)

    def to_control_response(self) -> dict[str, Any]:
        """The ``can_use_tool`` answer the CLI expects. "ask" must be resolved first."""
        if self.behavior == "allow":
            out: dict[str, Any] = {"behavior": "allow"}
            if self.updated_input is not None:
                out["updatedInput"] = dict(self.updated_input)
            return out
        return {"behavior": "deny", "message": self.message or "Denied by toolhost policy."}


class Policy(Protocol):
    """Decides a tool call. Pure and fast: compiled once, called per request."""

    def decide(self, tool_name: str, tool_input: Mapping[str, Any]) -> Decision: ...


class Asker(Protocol):
    """Turns an "ask" decision into allow or deny (a terminal prompt, --yes, or no-terminal)."""

    async def ask(self, tool_name: str, tool_input: Mapping[str, Any],
                  decision: Decision) -> Decision: ...
