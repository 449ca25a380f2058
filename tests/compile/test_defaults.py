"""Defaults are filled 100 levels down a call (``MAX_FILL_DEPTH``) while the wire takes 256:
a call nested deeper where the schema declares a default still to fill is refused, by the
policy (its rules would judge arguments without the defaults the tool then runs with) and
by the tool, in one line; a call as deep that gives every default is filled and runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio
import pytest

from tests.mcp.mcp_testtools import make_tool
from toolhost.backends.base import CallContext
from toolhost.compile.defaults import MAX_FILL_DEPTH, FillTooDeep, declared_defaults
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.results import ToolResult

NODE = {"type": "object", "properties": {  # a tree: a default at every level
    "depth": {"type": "integer", "default": 3},
    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}
ROWS = {"items": {"$ref": "#/$defs/Rows"},  # lists of lists ... of objects
        "properties": {"limit": {"type": "integer", "default": 50}}}


def _tree(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    node = leaf
    for _ in range(levels):
        node = {"depth": 1, "children": [node]}
    return node


def _rows(levels: int, leaf: dict[str, Any]) -> Any:
    node: Any = leaf
    for _ in range(levels):
        node = [node]
    return node


DEEP = MAX_FILL_DEPTH + 20  # within the wire's 256 levels
CASES = [  # (the definition, a call whose deepest object leaves a default out, as deep
    #         but giving it)
    ({"Node": NODE}, {"opts": _tree(DEEP // 2, {})}, {"opts": _tree(DEEP // 2, {"depth": 1})}),
    ({"Rows": ROWS}, {"opts": _rows(DEEP, {})}, {"opts": _rows(DEEP, {"limit": 5})}),
]


@pytest.mark.parametrize(("definitions", "left", "given"), CASES, ids=["tree", "lists"])
def test_a_call_deeper_than_the_fill_with_a_default_left_is_refused(
        definitions: dict[str, Any], left: dict[str, Any], given: dict[str, Any]) -> None:
    name = next(iter(definitions))
    schema = {"type": "object", "properties": {"opts": {"$ref": f"#/$defs/{name}"}},
              "$defs": definitions}
    defaults = declared_defaults(schema)
    deny = RuleConfig("deny", "mcp__demo__t", origin=Origin("t.yaml", 3, 5, "permissions.x"),
                      when={"q": "never"})
    policy = compile_policy(PermissionsConfig(rules=(deny,), default="allow"), cwd="/tmp",
                            defaults={"mcp__demo__t": defaults})
    ran: list[Mapping[str, Any]] = []

    async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        ran.append(arguments)
        return ToolResult.text("ran")

    tool = make_tool("t", invoke, schema=schema, defaults=defaults)

    async def call(arguments: dict[str, Any]) -> ToolResult:
        return await tool.call(arguments, CallContext(call_id="1", tool="mcp__demo__t"))

    refused = policy.decide("mcp__demo__t", left)
    assert refused.behavior == "deny"
    assert refused.message == FillTooDeep.said("mcp__demo__t")
    said = anyio.run(call, left).to_mcp()
    assert said["isError"] and said["content"][0]["text"] == (
        "Invalid arguments for tool 't': " + FillTooDeep.said(None))
    assert "\n" not in said["content"][0]["text"] and ran == []
    # as deep, every default given: nothing left to fill, judged and run as sent
    assert policy.decide("mcp__demo__t", given).behavior == "allow"
    assert not anyio.run(call, given).is_error and ran == [given]
