"""A compiled tool: everything tools/list and tools/call need, built once at compile time."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio
from jsonschema.protocols import Validator

from toolhost.backends.base import CallContext, Invoke
from toolhost.config.model import UNKNOWN, Origin
from toolhost.results import ToolResult

__all__ = ["CompiledTool"]

DEFAULT_MAX_OUTPUT_CHARS = 40_000  # below the ~49,000 the CLI passes intact


@dataclass(frozen=True)
class CompiledTool:
    """One tool, ready to be listed and called. Frozen: a reload builds new ones."""

    name: str  # bare tool name, as in tools/list
    server: str
    description: str
    input_schema: Mapping[str, Any]
    validator: Validator  # compiled once from input_schema
    invoke: Invoke
    title: str | None = None
    output_schema: Mapping[str, Any] | None = None
    output_validator: Validator | None = None
    annotations: Mapping[str, Any] = field(default_factory=dict)
    timeout: float | None = None
    output: Literal["structured", "text"] = "text"
    max_output_chars: int = DEFAULT_MAX_OUTPUT_CHARS
    origin: Origin = UNKNOWN

    @property
    def wire_name(self) -> str:
        return f"mcp__{self.server}__{self.name}"

    def descriptor(self) -> dict[str, Any]:
        """The tools/list entry."""
        out: dict[str, Any] = {"name": self.name, "description": self.description,
                               "inputSchema": dict(self.input_schema)}
        if self.title:
            out["title"] = self.title
        annotations = dict(self.annotations)
        if self.title and "title" not in annotations:
            annotations["title"] = self.title  # the CLI shows annotations.title
        if annotations:
            out["annotations"] = annotations
        if self.output_schema is not None:
            out["outputSchema"] = dict(self.output_schema)
        return out

    def argument_errors(self, arguments: Mapping[str, Any]) -> list[str]:
        """Human-readable validation errors, each naming the argument."""
        errors = []
        for err in sorted(self.validator.iter_errors(arguments), key=lambda e: list(e.path)):
            where = ".".join(str(p) for p in err.path) or "(arguments)"
            errors.append(f"{where}: {err.message}")
        return errors

    async def call(self, arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        """Validate, invoke with the timeout, and turn any failure into an isError result."""
        errors = self.argument_errors(arguments)
        if errors:
            return ToolResult.error("Invalid arguments for tool "
                                    f"'{self.name}': " + "; ".join(errors))
        try:
            if self.timeout is not None:
                with anyio.fail_after(self.timeout):
                    result = await self.invoke(arguments, ctx)
            else:
                result = await self.invoke(arguments, ctx)
        except TimeoutError:
            return ToolResult.error(f"Tool '{self.name}' timed out after {self.timeout:g}s.")
        except Exception as exc:  # a tool's failure is a result, never a crash
            ctx.log.exception("tool %s failed", self.wire_name)
            return ToolResult.error(f"Tool '{self.name}' failed: {type(exc).__name__}: {exc}")
        return result
