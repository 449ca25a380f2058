"""What a server's content is: the ``Resource`` and ``Prompt`` protocols that declared and
upstream resources and prompts both meet, and the errors their reads and gets raise.

Here, not beside the compiled forms (prompts.py, resources.py): a server catches these errors,
and a tools-only config never loads those modules.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from toolhost.backends.base import CallContext
from toolhost.excerpt import cut

__all__ = ["Prompt", "PromptError", "Resource", "ResourceError", "failure_named"]


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


def failure_named(text: str, hidden: str, named: str, limit: int) -> str:
    """A hidden tool's error text (a resource's, a prompt's or a completion's backend) as
    the client knows the request: ``named`` ("reading t://a", "prompt 'p'") instead of
    ``Tool 'resource-t'``, also when the backend's own text names nothing (a command's
    "The command exited with code 3"), on one line (a command's stderr keeps its words)."""
    failed = f"Tool '{hidden}' failed"
    text = text[len(failed):].lstrip(":") if text.startswith(failed) else text
    one_line = " ".join(text.split())
    return cut(f"{named} failed: {one_line}", limit)


class Resource(Protocol):
    """A resource (or template) a server offers: declared, or an upstream's."""

    @property
    def is_template(self) -> bool: ...

    def descriptor(self) -> dict[str, Any]:
        """The resources/templates/list entry (a static resource: what identifies it)."""

    def listed(self) -> Iterator[dict[str, Any]]:
        """The resources/list entries."""

    def matches(self, uri: str) -> Mapping[str, str] | None:
        """The values the (normalised) URI gives (``{}`` for none), or None when it is not
        this one's."""

    def canonical(self, uri: str, values: Mapping[str, str]) -> str:
        """The one spelling of ``uri`` (which matched with ``values``) rules and reads see."""

    async def read(self, uri: str, values: Mapping[str, str],
                   ctx: CallContext) -> list[dict[str, Any]]:
        """The resources/read ``contents``."""


class Prompt(Protocol):
    """A prompt a server offers: declared, or an upstream's."""

    def descriptor(self) -> dict[str, Any]:
        """The prompts/list entry."""

    async def get(self, arguments: Any, ctx: CallContext) -> dict[str, Any]:
        """The prompts/get result."""

    def renamed(self, name: str) -> Prompt:
        """The same prompt under another name (several servers served as one)."""
