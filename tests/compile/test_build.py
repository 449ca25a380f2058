from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from toolhost.backends.base import BindContext, Binding, CallContext
from toolhost.backends.registry import BUILTIN_KINDS, builtin_kinds
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig, ServerConfig, ServerDefaults, ToolConfig
from toolhost.errors import CompileError
from toolhost.results import ToolResult

Config = Callable[..., HostConfig]


class EchoKind:
    """A test backend kind: returns its arguments as structured content."""

    name = "echo"
    shorthand = None
    options_schema: Mapping[str, Any] = {"type": "object"}

    def __init__(self) -> None:
        self.closed = 0

    def bind(self, tool: ToolConfig, ctx: BindContext) -> Binding:
        async def close() -> None:
            self.closed += 1

        ctx.shared("closer", lambda: ctx.on_close(close))

        async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
            return ToolResult.json(dict(arguments))

        return Binding(invoke=invoke, input_schema=dict(tool.backend.options.get("schema", {
            "type": "object", "properties": {}})), output="structured")


def echo(**extra: Any) -> dict[str, Any]:
    return {"kind": "echo", "options": {}, **extra}


def kinds(kind: EchoKind) -> dict[str, Any]:
    return {**builtin_kinds(), "echo": kind}


def test_builtin_kinds_is_a_copy() -> None:
    got = builtin_kinds()
    assert set(got) >= {"python"}
    got.pop("python")
    assert "python" in BUILTIN_KINDS


@pytest.mark.anyio
async def test_defaults_filled_and_one_context_per_server(config: Config) -> None:
    kind = EchoKind()
    cfg = config({"a": echo(params={"n": {"type": "integer", "default": 3},
                                    "s": {"type": "string"}}, required=("s",)),
                  "b": echo()})
    compiled = compile_tools(cfg, kinds(kind))
    tool = compiled.tool("demo", "a")
    assert tool.input_schema == {"type": "object", "required": ["s"], "properties": {
        "n": {"type": "integer", "default": 3}, "s": {"type": "string"}}}
    result = await tool.call({"s": "x"}, CallContext())
    assert result.structured == {"n": 3, "s": "x"}
    await compiled.aclose()
    await compiled.aclose()  # idempotent
    assert kind.closed == 1  # both tools shared one server resource


def test_every_bad_tool_is_reported(config: Config) -> None:
    long = "t" * 60
    cfg = config({
        "ok": echo(),
        "badname": echo(params={"bad name!": {"type": "string"}}),
        "noitems": echo(params={"xs": {"type": "array"}}),
        "invalid": echo(params={"n": {"type": "integr"}}),
        "rootarray": {"kind": "echo", "options": {"schema": {"type": "array", "items": {}}}},
        long: echo(),
        "unknown": {"kind": "nosuch", "options": {}},
        "badout": echo(output_schema={"type": "string"}),
    })
    with pytest.raises(CompileError) as info:
        compile_tools(cfg, kinds(EchoKind()))
    messages = [str(p) for p in info.value.problems]
    assert len(messages) == 7, messages
    joined = "\n".join(messages)
    assert "property name 'bad name!' is not allowed" in joined
    assert "array without 'items' at properties.xs" in joined
    assert "not a valid JSON Schema" in joined
    assert "must have type: object at the root, not 'array'" in joined
    assert f"mcp__demo__{long}" in joined and "64" in joined
    assert "unknown backend kind 'nosuch'" in joined
    assert "known: command, echo, http, python" in joined
    assert "outputSchema must have type: object" in joined
    assert all(m.startswith("test.yaml:") for m in messages)


def test_external_servers_have_no_tools() -> None:
    cfg = HostConfig(version=1, servers={"ext": ServerConfig(
        name="ext", external={"type": "stdio", "command": "x"})})
    assert compile_tools(cfg).servers == {"ext": ()}


@pytest.mark.anyio
async def test_server_timeout_default_and_secret_redaction(config: Config) -> None:
    cfg = config({"fail": {"kind": "python", "options": {"function": "toolhost.demo:fail"}}},
                 defaults=ServerDefaults(timeout=7))
    cfg = HostConfig(version=1, servers=cfg.servers, secrets=frozenset({"hunter2"}))
    compiled = compile_tools(cfg)
    tool = compiled.tool("demo", "fail")
    assert tool.timeout == 7
    result = await tool.call({"reason": "token hunter2 rejected"}, CallContext())
    assert result.text_content == "Tool 'fail' failed: RuntimeError: token *** rejected"
    with pytest.raises(KeyError, match="tools: fail"):
        compiled.tool("demo", "nope")
    await compiled.aclose()
