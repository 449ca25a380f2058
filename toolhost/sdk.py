"""toolhost for programs that already use ``claude_agent_sdk`` (the ``toolhost[sdk]`` extra).

    import toolhost
    from claude_agent_sdk import query

    async with toolhost.load("team.yaml") as host:
        async for message in query(prompt=..., options=host.options(max_turns=8)):
            ...

``mcp_servers`` holds one ``{"type": "sdk", "name", "instance"}`` entry per toolhost
server, whose instance is an ``mcp.server.Server`` answering from toolhost's own MCP core
(same schemas, validation, output shaping as ``toolhost run``), plus the config's external
servers as they are (the CLI runs those itself: their calls reach ``can_use_tool`` when the
CLI asks, but nothing of toolhost stands at their ``tools/call``). ``can_use_tool`` applies
the config's permission rules to every tool the CLI asks about (built-in tools too): a deny
carries the rule's message, an allow may rewrite the input.

Fail closed, in two locks. The CLI skips ``can_use_tool`` when something of its own allowed
a tool first (a settings file's ``permissions.allow`` or ``defaultMode``, a permission mode,
``allowed_tools``, a hook), so each allow ``can_use_tool`` answers is noted by the model's
tool-use id (``toolhost.permissions.second_lock``) and a ``tools/call`` of a toolhost tool
runs as it is only with a noted id and the input allowed; any other call is decided when it
arrives (rules, ``ask_mode`` or the terminal for an ask, the audit log; a deny is the call's
error). That holds for ``ClaudeAgentOptions`` built by hand too. ``options(**kwargs)``
refuses, with a ``ToolhostError``, what would make the CLI decide by itself
(``toolhost.config.cli_args``): a ``permission_mode`` other than default/plan/dontAsk,
``allowed_tools``, ``settings``, ``permission_prompt_tool_name``, another ``can_use_tool``,
``extra_args`` carrying such flags; and it starts the CLI in ``default`` mode unless told
``plan`` or ``dontAsk``, so a settings file's ``defaultMode`` does not apply to built-in tools,
with ``settings`` holding a whole-tool ask rule for every tool (``SdkHost.settings``), so the
CLI asks ``can_use_tool`` about every call, even one it would run by itself.

Imported servers (``mcp:``) are followed as under ``run`` and ``serve``: a pending upstream
is retried in the background and its tools served once it is up, a new tool list is taken
in (``toolhost.sdk_upstreams``; a CLI session sees them from its start on).
``claude_agent_sdk`` and ``mcp`` are imported only here, lazily.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.errors import ToolhostError
from toolhost.excerpt import cut
from toolhost.failures import log_failure
from toolhost.mcp import McpServer
from toolhost.mcp.server import TOOL_USE_ID_META_KEY
from toolhost.permissions.second_lock import NotedAllows
from toolhost.results import ToolResult
from toolhost.sdk_upstreams import SdkUpstreams

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


def tool_use_id_of(*metas: Any) -> str:
    """The Claude CLI's tool-use id from a request's ``_meta`` (the first that has one, as a
    string), else ``""``: an id of another type or shape is no id."""
    for meta in metas:
        if isinstance(meta, Mapping):
            found = meta.get(TOOL_USE_ID_META_KEY)
            if type(found) is str:
                return found
    return ""


def sdk_server(core: McpServer, on_use: Callable[[], None] | None = None) -> Any:
    """An ``mcp.server.Server`` that answers tools/list and tools/call from ``core``.

    ``claude_agent_sdk`` runs it over its in-memory transport for the CLI's ``mcp_message``
    requests; everything is delegated to ``core.handle`` so the answers are exactly those
    ``toolhost run`` and ``toolhost serve`` give. The call's tool-use id (its ``_meta``)
    reaches the core's guard as ``CallContext.tool_use_id``. ``on_use`` is called at each
    request (it starts following the upstreams inside the CLI's event loop).
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
        if on_use is not None:
            on_use()
        tools = [t.descriptor() for t in core.tools]  # one page: the SDK does not page
        return mcp_types.ListToolsResult.model_validate({"tools": tools})

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        if on_use is not None:
            on_use()
        call: dict[str, Any] = {"name": params.name, "arguments": params.arguments or {}}
        # only the id: the rest of _meta (a protocol version, a log level) is the SDK's
        tool_use_id = tool_use_id_of(getattr(params, "meta", None), getattr(ctx, "meta", None))
        if tool_use_id:
            call["_meta"] = {TOOL_USE_ID_META_KEY: tool_use_id}
        result = await ask_core("tools/call", call)
        return mcp_types.CallToolResult.model_validate(result)

    return server_cls(core.name, version=core.version, instructions=core.instructions,
                      on_list_tools=on_list_tools, on_call_tool=on_call_tool)


class SdkHost:
    """A loaded config, shaped for ``ClaudeAgentOptions``. Close it (or use ``async with``).

    Its servers' calls pass the second lock (the module docstring) whether or not the
    program uses ``can_use_tool`` and ``options()``."""

    def __init__(self, host: Any, gate: Any) -> None:
        self.host = host  # toolhost.host.Host
        self.gate = gate  # toolhost.permissions.gate.PermissionGate
        self.noted = NotedAllows()  # allows can_use_tool answered, by tool-use id
        self.start: str | None = None  # the CLI's cwd, once options() gave it
        self.closed = False
        self.mcp_servers: dict[str, Any] = {}
        self.upstreams = SdkUpstreams(host)  # imported servers followed (toolhost.sdk_upstreams)
        for name, core in host.servers.items():
            core.guard = self._guard
            self.mcp_servers[name] = {"type": "sdk", "name": name,
                                      "instance": sdk_server(core, self.upstreams.start)}
        for name, external in host.external.items():
            self.mcp_servers[name] = dict(external)
        self.upstreams.start()  # when loaded inside an event loop already

    @property
    def config(self) -> Any:
        return self.host.config

    @property
    def allowed_tools(self) -> list[str]:
        """Nothing is pre-allowed: every call reaches ``can_use_tool`` and the rules."""
        return []

    @property
    def disallowed_tools(self) -> list[str]:
        """Tools denied whatever their input: pass as ``disallowed_tools`` to hide them
        (leaving them out hides nothing, and denies nothing less)."""
        return list(self.host.disallowed_tools())

    @property
    def settings(self) -> str:
        """The CLI settings (JSON) that make it ask ``can_use_tool`` about every call, even
        those it would allow by itself (reads in its working directory, its pre-approved
        WebFetch hosts, allow rules of the user's settings files): pass as ``settings``
        when building ``ClaudeAgentOptions`` by hand (``toolhost.runner.cli_settings``)."""
        from toolhost.runner.cli_settings import settings_json

        return settings_json(self.mcp_servers)

    async def can_use_tool(self, tool_name: str, tool_input: dict[str, Any],
                           context: Any = None) -> Any:
        """The ``can_use_tool`` callback: the config's rules decide, fail closed."""
        from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

        if self.closed:
            return PermissionResultDeny(message="toolhost: this host is closed.")
        self.upstreams.start()
        if type(tool_name) is not str or not isinstance(tool_input, Mapping):
            return PermissionResultDeny(message="toolhost: a malformed permission request "
                                                "(tool name or input); denied.")
        tool_use_id = getattr(context, "tool_use_id", None)
        request = {"tool_use_id": tool_use_id} if type(tool_use_id) is str and tool_use_id \
            else None
        from toolhost.serve.guard import rules_defaults

        judged = rules_defaults(self.gate, tool_name)  # (before a person is asked)
        try:
            decision = await self.gate.check(tool_name, tool_input, request)
        except Exception as exc:  # fail closed: a broken check never allows
            log_failure(log, f"permission check for {tool_name[:200]!r}", exc)
            return PermissionResultDeny(message=f"The permission check for {tool_name[:200]} "
                                                f"failed ({type(exc).__name__}); denied.")
        self.noted.note(tool_name, tool_input, tool_use_id, decision, judged)
        if decision.behavior == "allow":
            updated = decision.updated_input
            return PermissionResultAllow(
                updated_input=dict(updated) if updated is not None else None)
        return PermissionResultDeny(message=decision.message
                                    or f"{tool_name} is denied by toolhost policy.")

    async def _guard(self, tool: CompiledTool, arguments: Mapping[str, Any],
                     ctx: CallContext) -> ToolResult | None:
        """The second lock, at a toolhost tool's ``tools/call`` (the module docstring)."""
        from toolhost.compile.defaults import FillRefused
        from toolhost.serve.guard import decided, judged_input, rules_defaults

        if self.closed:
            return ToolResult.error("toolhost: this host is closed; the call did not run.")
        name = ctx.tool or tool.wire_name
        if self.noted.claim(name, arguments, ctx.tool_use_id, tool.defaults):
            return None  # the call the CLI asked about, as it was allowed
        log.debug("tools/call of %s: the CLI did not ask about this call (or this input, "
                  "or the tool's defaults changed since); deciding it here", name)
        request = {"tool_use_id": ctx.tool_use_id} if ctx.tool_use_id else None
        try:  # judged with the defaults of the very tool that runs
            judged = judged_input(tool, arguments, rules_defaults(self.gate, name))
        except FillRefused as exc:
            return ToolResult.error(exc.said(name))
        decision = await self.gate.check(name, judged if type(judged) is dict
                                         else dict(judged), request)
        return await decided(decision, tool, arguments, ctx, name)

    def options(self, **kwargs: Any) -> Any:
        """``ClaudeAgentOptions`` with this host's servers, permission callback and denials,
        in permission mode ``default``; other keyword arguments are passed through. Raises
        ``ToolhostError`` for one that would let the CLI run tools without asking the rules
        (the module docstring). The CLI starts in ``cwd`` (default: the config's ``run.cwd``,
        else the current directory), where the rules read what commands run, and every Bash
        call starts there; ``cwd`` binds this host to that directory (another is refused)."""
        from toolhost.runner.cli_settings import KEEP_START_DIR
        from toolhost.sdk_options import refused

        try:
            from claude_agent_sdk import ClaudeAgentOptions
        except ImportError as exc:
            raise ToolhostError(f"{SDK_EXTRA_HINT} ({exc})") from None
        if self.closed:
            raise ToolhostError("toolhost: this host is closed; load the config again")
        self.upstreams.start()
        why = refused(kwargs, self.can_use_tool)
        if why is not None:
            raise ToolhostError(f"toolhost.sdk options: {why}")
        # The CLI's Bash runs in its cwd: the rules read repositories, patches, archives and
        # relative paths there. One host judges one folder (its policy is shared).
        policy = self.host.policy
        start = os.path.abspath(kwargs["cwd"]) if kwargs.get("cwd") is not None else policy.cwd
        if self.start is not None and os.path.realpath(start) != os.path.realpath(self.start):
            raise ToolhostError(
                f"toolhost.sdk options: cwd {cut(start)} is not the folder this host's "
                f"sessions run in ({cut(self.start)}): load the config again for another")
        self.start = policy.cwd = start
        settings: dict[str, Any] = {"mcp_servers": self.mcp_servers,
                                    "can_use_tool": self.can_use_tool,
                                    "disallowed_tools": self.disallowed_tools,
                                    "permission_mode": "default",
                                    "settings": self.settings}
        settings.update({k: v for k, v in kwargs.items()
                         if not (k in ("permission_mode", "settings", "cwd") and v is None)})
        settings["cwd"] = start
        # every Bash call starts in that folder: a cd does not carry to the next call
        settings["env"] = {**(kwargs.get("env") or {}), **KEEP_START_DIR}
        return ClaudeAgentOptions(**settings)

    async def aclose(self) -> None:
        """Close the audit log and the backends. Safe to call twice; a closed host denies
        every call and refuses ``options()``."""
        if self.closed:
            return
        self.closed = True
        await self.upstreams.aclose()  # before the connections it may be starting are closed
        close = getattr(self.gate, "close", None)
        if callable(close):
            close()
        await self.host.aclose()

    async def __aenter__(self) -> SdkHost:
        self.upstreams.start()
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
                                      assume_yes=assume_yes, policy=host.policy)
    return SdkHost(host, gate)
