"""An imported server whose upstream re-lists a tool with other defaults between a call's
decision and its run (``McpServer.set_tools``, driven in process: no timed race): shared by
the serve guard's and the runner's second lock's tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.mcp.mcp_testtools import make_tool
from toolhost.backends.base import CallContext
from toolhost.compile.declared import declared_defaults
from toolhost.compile.tool import CompiledTool
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.host import tool_defaults
from toolhost.mcp import McpServer
from toolhost.permissions import PermissionGate, compile_policy
from toolhost.permissions.ask import FixedAsker
from toolhost.results import ToolResult

NAME = "mcp__h__find"
LIMIT = "limit"  # denied from 10 up: `deny mcp__h__find when {limit: {min: 10}}` (or opts.)


def _schema(where: str, limit: int) -> dict[str, Any]:
    """``limit`` defaulting to ``limit``: an argument of its own, or inside ``opts``."""
    own = {"type": "integer", "default": limit}
    if where == "top":
        return {"type": "object", "properties": {"limit": own}}
    return {"type": "object", "properties": {"opts": {"$ref": "#/$defs/Opts"}},
            "$defs": {"Opts": {"type": "object", "properties": {"limit": own}}}}


async def _ran(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.text("ran")


@dataclass
class Relisted:
    """``server`` lists ``tool(limit)``; ``relist(limit)`` is the upstream's new list."""

    where: str
    server: McpServer
    gate: PermissionGate

    def tool(self, limit: int) -> CompiledTool:
        schema = _schema(self.where, limit)
        return make_tool("find", _ran, server="h", schema=schema,
                         defaults=declared_defaults(schema))

    def relist(self, limit: int) -> CompiledTool:
        new = self.tool(limit)
        self.server.set_tools([new])
        return new

    @property
    def call(self) -> dict[str, Any]:
        """A call that leaves the limit to its default."""
        return {} if self.where == "top" else {"opts": {}}


def relisted(where: str, limit: int) -> Relisted:
    """A host's view of server ``h`` listing ``find`` with ``limit`` as its default, its
    policy filling the defaults of what ``h`` lists now (as ``load_host`` builds it)."""
    server = McpServer("h", "1", [])
    made = Relisted(where, server, None)  # type: ignore[arg-type]
    server.set_tools([made.tool(limit)])
    key = "limit" if where == "top" else "opts.limit"
    deny = RuleConfig("deny", NAME, origin=Origin("t.yaml", 3, 5, "permissions.deny[0]"),
                      when={key: {"min": 10}}, message="no big limits")
    policy = compile_policy(PermissionsConfig(rules=(deny,), default="allow"), cwd="/tmp",
                            defaults=tool_defaults({"h": server}))
    made.gate = PermissionGate(policy, FixedAsker("deny", answered_by="test"))
    return made
