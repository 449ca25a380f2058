"""Why a prompt or a resource cannot be answered. Apart from their compiled forms so that a
server (which catches them) loads without the resource and prompt machinery a tools-only
config never uses."""

from __future__ import annotations

__all__ = ["PromptError", "ResourceError"]


class PromptError(Exception):
    """prompts/get cannot be answered; ``invalid`` selects -32602 (the caller's mistake)."""

    def __init__(self, message: str, *, invalid: bool = False) -> None:
        super().__init__(message)
        self.invalid = invalid


class ResourceError(Exception):
    """A read that cannot be answered; ``not_found`` selects MCP's -32002."""

    def __init__(self, message: str, *, not_found: bool = False) -> None:
        super().__init__(message)
        self.not_found = not_found
