"""toolhost for programs that already use ``claude_agent_sdk`` (the ``toolhost[sdk]`` extra).

    import toolhost
    from claude_agent_sdk import ClaudeAgentOptions, query

    async with toolhost.load("team.yaml") as host:
        options = ClaudeAgentOptions(mcp_servers=host.mcp_servers,
                                     can_use_tool=host.can_use_tool,
                                     disallowed_tools=host.disallowed_tools)
        async for message in query(prompt=..., options=options):
            ...

``mcp_servers`` holds one ``{"type": "sdk", "name", "instance"}`` entry per toolhost
server, whose instance is an ``mcp.server.Server`` answering from toolhost's own MCP core
(same schemas, validation, output shaping as ``toolhost run``), plus the config's external
servers as they are. ``can_use_tool`` applies the config's permission rules to every tool the
CLI asks about (built-in tools too): a deny carries the rule's message, an allow may rewrite
the input. ``claude_agent_sdk`` and ``mcp`` are imported only here, lazily.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from toolhost.errors import ToolhostError
from toolhost.mcp import McpServer

__all__ = ["SDK_EXTRA_HINT", "SdkHost", "load", "sdk_server"]

log = logging.getLogger("toolhost.sdk")

SDK_EXTRA_HINT = "the SDK adapter needs claude-agent-sdk: pip install 'toolhost[sdk]'"


def _mcp() -> Any:
    try:
        import mcp.types as mcp_types
        from mcp.server import Server
        from mcp.shared.exceptions import MCPError
    except ImportError as exc:
        raise ToolhostError(f"{SDK_EXTRA_HINT} ({exc})") from None
    return Server, mcp_types, MCPError


def sdk_server(core: McpServer) -> Any:
    """An ``mcp.server.Server`` that answers tools/list and tools/call from ``core``.

    ``claude_agent_sdk`` runs it over its in-memory transport for the CLI's ``mcp_message``
    requests; everything is delegated to ``core.handle`` so the answers are exactly those
    ``toolhost run`` and ``toolhost serve`` give.
    """
    server_cls, mcp_types, mcp_error = _mcp()
    counter = iter(range(1, 2**62))

    async def ask_core(method: str, params: dict[str, Any]) -> dict[str, Any]:
        answer = await core.handle({"jsonrpc": "2.0", "id": next(counter), "method": method,
                                    "params": params})
        assert answer is not None
        if "error" in answer:
            error = answer["error"]
            raise mcp_error(int(error["code"]), str(error["message"]), error.get("data"))
        result: dict[str, Any] = answer["result"]
        return result

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        tools = [t.descriptor() for t in core.tools]  # one page: the SDK does not page
        return mcp_types.ListToolsResult.model_validate({"tools": tools})

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        result = await ask_core("tools/call", {"name": params.name,
                                               "arguments": params.arguments or {}})
        return mcp_types.CallToolResult.model_validate(result)

    return server_cls(core.name, version=core.version, instructions=core.instructions,
                      on_list_tools=on_list_tools, on_call_tool=on_call_tool)


class SdkHost:
    """A loaded config, shaped for ``ClaudeAgentOptions``. Close it (or use ``async with``)."""

    def __init__(self, host: Any, gate: Any) -> None:
        self.host = host  # toolhost.host.Host
        self.gate = gate  # toolhost.permissions.gate.PermissionGate
        self.mcp_servers: dict[str, Any] = {
            name: {"type": "sdk", "name": name, "instance": sdk_server(core)}
            for name, core in host.servers.items()}
        for name, external in host.external.items():
            self.mcp_servers[name] = dict(external)

    @property
    def config(self) -> Any:
        return self.host.config

    @property
    def allowed_tools(self) -> list[str]:
        """Nothing is pre-allowed: every call reaches ``can_use_tool`` and the rules."""
        return []

    @property
    def disallowed_tools(self) -> list[str]:
        """Tools denied whatever their input: pass as ``disallowed_tools`` to hide them."""
        return list(self.host.disallowed_tools())

    async def can_use_tool(self, tool_name: str, tool_input: dict[str, Any],
                           context: Any = None) -> Any:
        """The ``can_use_tool`` callback: the config's rules decide, fail closed."""
        from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

        request: Mapping[str, Any] | None = None
        tool_use_id = getattr(context, "tool_use_id", None)
        if tool_use_id:
            request = {"tool_use_id": tool_use_id}
        decision = await self.gate.check(tool_name, tool_input, request)
        if decision.behavior == "allow":
            updated = decision.updated_input
            return PermissionResultAllow(
                updated_input=dict(updated) if updated is not None else None)
        return PermissionResultDeny(message=decision.message
                                    or f"{tool_name} is denied by toolhost policy.")

    def options(self, **kwargs: Any) -> Any:
        """``ClaudeAgentOptions`` with this host's servers, permission callback and denials;
        keyword arguments are passed through (and may override)."""
        try:
            from claude_agent_sdk import ClaudeAgentOptions
        except ImportError as exc:
            raise ToolhostError(f"{SDK_EXTRA_HINT} ({exc})") from None
        settings: dict[str, Any] = {"mcp_servers": self.mcp_servers,
                                    "can_use_tool": self.can_use_tool,
                                    "disallowed_tools": self.disallowed_tools}
        settings.update(kwargs)
        return ClaudeAgentOptions(**settings)

    async def aclose(self) -> None:
        close = getattr(self.gate, "close", None)
        if callable(close):
            close()
        await self.host.aclose()

    async def __aenter__(self) -> SdkHost:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None,
                        exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.aclose()


def load(path: str | Path, *, interactive: bool = False, assume_yes: bool = False,
         environ: Mapping[str, str] | None = None) -> SdkHost:
    """Load and compile a config for use with ``claude_agent_sdk``.

    ``interactive``: let an "ask" rule prompt on the terminal (default: an "ask" is
    answered by the config's ``ask_mode``, and is a deny when that is ``prompt``).
    ``assume_yes``: answer every "ask" with allow (deny rules still apply).
    Raises ``ConfigError``/``CompileError`` naming every problem (file, line, key path).
    """
    from toolhost.host import load_host
    from toolhost.permissions.gate import PermissionGate

    _mcp()  # fail early, naming the extra, if the SDK side is missing
    host = load_host(path, environ=environ)
    gate = PermissionGate.from_config(host.config, interactive=interactive,
                                      assume_yes=assume_yes)
    return SdkHost(host, gate)
