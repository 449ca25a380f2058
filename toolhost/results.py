"""What a tool call returns: MCP content blocks, optional structured content, an error flag."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ToolResult"]


@dataclass(frozen=True)
class ToolResult:
    """The result of one tool call, as MCP's ``CallToolResult`` carries it.

    ``content`` holds MCP content blocks (``{"type": "text", "text": ...}``, ``image``,
    ``audio``, ``resource_link``, ``resource``). ``structured`` is ``structuredContent``.
    A Python tool may return a ``ToolResult`` itself for full control.
    """

    content: tuple[Mapping[str, Any], ...] = ()
    structured: Mapping[str, Any] | None = None
    is_error: bool = False

    @classmethod
    def text(cls, text: str, *, is_error: bool = False) -> ToolResult:
        """One text block."""
        return cls(content=({"type": "text", "text": text},), is_error=is_error)

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failure the model can read and act on."""
        return cls.text(message, is_error=True)

    @classmethod
    def json(cls, value: Any, *, is_error: bool = False) -> ToolResult:
        """Structured content plus its JSON as text (objects only are structured, per MCP)."""
        text = json.dumps(value, ensure_ascii=False, default=str)
        structured = value if isinstance(value, Mapping) else {"result": value}
        return cls(content=({"type": "text", "text": text},), structured=structured,
                   is_error=is_error)

    @property
    def text_content(self) -> str:
        """All text blocks joined by newlines (handy in tests and the human renderer)."""
        return "\n".join(str(b.get("text", "")) for b in self.content if b.get("type") == "text")

    def to_mcp(self) -> dict[str, Any]:
        """The ``CallToolResult`` dict sent on the wire."""
        out: dict[str, Any] = {"content": [dict(b) for b in self.content],
                               "isError": self.is_error}
        if self.structured is not None:
            out["structuredContent"] = dict(self.structured)
        return out

    @classmethod
    def from_mcp(cls, data: Mapping[str, Any]) -> ToolResult:
        """The inverse of ``to_mcp``: a ``CallToolResult`` dict read back."""
        content: Sequence[Mapping[str, Any]] = data.get("content") or ()
        return cls(content=tuple(content), structured=data.get("structuredContent"),
                   is_error=bool(data.get("isError", False)))
