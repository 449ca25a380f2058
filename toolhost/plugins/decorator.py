"""``@tool``: metadata a plugin attaches to a plain function, read by ``Registry.add_tool``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

__all__ = ["ToolMeta", "tool", "tool_meta"]

F = TypeVar("F", bound=Callable[..., Any])
_ATTR = "__toolhost_tool__"


@dataclass(frozen=True)
class ToolMeta:
    """Overrides for what toolhost would otherwise take from the function itself."""

    name: str | None = None
    description: str | None = None
    annotations: Mapping[str, Any] | None = None
    params: Mapping[str, Mapping[str, Any]] | None = None
    timeout: float | None = None

    def merged(self, override: ToolMeta) -> ToolMeta:
        """``override``'s values where it sets them, ours elsewhere."""
        changes = {k: v for k, v in vars(override).items() if v is not None}
        return replace(self, **changes)


def tool(*, name: str | None = None, description: str | None = None,
         annotations: Mapping[str, Any] | None = None,
         params: Mapping[str, Mapping[str, Any]] | None = None,
         timeout: float | None = None) -> Callable[[F], F]:
    """Attach tool metadata to a function; the function itself is returned unchanged.

    ::

        @tool(name="read", annotations={"readOnlyHint": True},
              params={"path": {"description": "Relative to the root"}})
        def read_file(path: str, max_bytes: int = 65536) -> str:
            '''Read a text file under the configured root.'''

    The tool's name defaults to the function's name and its description to the first
    paragraph of its docstring; ``params`` overrides parts of the schema generated from the
    signature. Register the function with ``registry.add_tool(func, server=...)``.
    """
    meta = ToolMeta(name=name, description=description, annotations=annotations,
                    params=params, timeout=timeout)

    def decorate(func: F) -> F:
        setattr(func, _ATTR, meta)
        return func

    return decorate


def tool_meta(func: Callable[..., Any]) -> ToolMeta:
    """The metadata ``@tool`` attached to ``func`` (empty if none)."""
    meta = getattr(func, _ATTR, None)
    return meta if isinstance(meta, ToolMeta) else ToolMeta()
