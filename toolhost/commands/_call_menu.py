"""What ``toolhost call CONFIG`` with no tool named says: the tools it could call, each with
the arguments it takes, and a command line to copy (as a wrong name gets "did you mean")."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolhost.compile import CompiledTool
    from toolhost.compile.build import CompiledTools

__all__ = ["signature", "tool_menu"]

SHOWN = 30  # tools listed; `toolhost tools CONFIG` lists them all


def _kind(schema: Any) -> str:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    if isinstance(kind, list):
        kind = "|".join(str(k) for k in kind if k != "null") or "null"
    return str(kind).upper() if kind else "VALUE"


def signature(tool: CompiledTool) -> str:
    """``a=INTEGER [b=STRING]``: required ones first, optional in brackets."""
    from toolhost.excerpt import cut

    props = tool.input_schema.get("properties") or {}
    required = tool.input_schema.get("required") or []
    if not isinstance(props, Mapping):
        return ""
    need = [f"{k}={_kind(props[k])}" for k in props if k in required]
    may = [f"[{k}={_kind(props[k])}]" for k in props if k not in required]
    return cut(" ".join(need + may), 160)


def tool_menu(config_arg: str, compiled: CompiledTools) -> str:
    """The usage error's text: every callable tool (the first ``SHOWN``), one a line."""
    tools = [(server, tool) for server, found in compiled.servers.items() for tool in found]
    if not tools:
        return (f"{config_arg} declares no tools to call; add one under servers.NAME.tools "
                "(toolhost init writes a working example)")
    lines = [f"name the tool to call: {config_arg} has {len(tools):,} "
             f"tool{'s' if len(tools) != 1 else ''}"]
    for server, tool in tools[:SHOWN]:
        lines.append(f"  {server}.{tool.name} {signature(tool)}".rstrip())
    if len(tools) > SHOWN:
        lines.append(f"  (+{len(tools) - SHOWN:,} more: toolhost tools {shlex.quote(config_arg)}"
                     " lists them all)")
    server, tool = tools[0]
    props = tool.input_schema.get("properties") or {}
    required = [k for k in tool.input_schema.get("required") or [] if k in props][:3]
    example = " ".join(f"{k}=..." for k in required)
    lines.append(f"e.g.: toolhost call {shlex.quote(config_arg)} {server}.{tool.name} "
                 f"{example}".rstrip())
    return "\n".join(lines)
