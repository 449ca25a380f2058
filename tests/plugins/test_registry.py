"""The registration API: what add_tool/add_rules/add_kind accept and refuse."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from toolhost.errors import PluginError
from toolhost.plugins import Registry, tool


@tool(name="shout", description="From the decorator", params={"text": {"maxLength": 5}})
def loud(text: str) -> str:
    """From the docstring."""
    return text.upper()


def test_decorator_metadata_and_overrides() -> None:
    reg = Registry("toolhost-x")
    reg.add_tool(loud, server="s")
    reg.add_tool(loud, server="s", name="yell", description="From add_tool")
    shout, yell = reg.tools[("s", "shout")], reg.tools[("s", "yell")]
    assert shout.description == "From the decorator"
    assert shout.params == {"text": {"maxLength": 5}}
    assert yell.description == "From add_tool"
    assert yell.backend.options == {"function": f"{__name__}:loud"}
    assert reg.provides()["tools"] == ["mcp__s__shout", "mcp__s__yell"]


def test_refusals_name_the_plugin() -> None:
    reg = Registry("toolhost-x")

    def inner(x: int) -> int:
        return x

    with pytest.raises(PluginError, match=r"'toolhost-x'.*top level of a module"):
        reg.add_tool(inner, server="s")
    with pytest.raises(PluginError, match="tool name 'bad name'"):
        reg.add_tool(loud, server="s", name="bad name")
    reg.add_tool(loud, server="s")
    with pytest.raises(PluginError, match=r"adds tool 's\.shout' twice"):
        reg.add_tool(loud, server="s")
    with pytest.raises(PluginError, match="needs a `tool` pattern"):
        reg.add_rules(deny=[{"when": {}}])
    with pytest.raises(PluginError, match="unknown keys"):
        reg.add_rules(deny=[{"tool": "x", "colour": 1}])
    with pytest.raises(PluginError, match="only allow rules may rewrite"):
        reg.add_rules(deny=[{"tool": "x", "rewrite": {"set": {}}}])
    with pytest.raises(PluginError, match="needs a `name`"):
        reg.add_kind(object())  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["description", "timeout", "params", "secrets"])
def test_a_kind_named_like_a_tool_key_is_refused(name: str) -> None:
    """A kind called `description` made every tool's description its backend block: each
    tool of the config failed with 'expected a mapping of description options'."""

    class Kind:
        shorthand = None
        options_schema = MappingProxyType({})

        def bind(self, tool: object, ctx: object) -> None:
            raise AssertionError

    kind = Kind()
    kind.name = name  # type: ignore[attr-defined]
    with pytest.raises(PluginError, match=f"backend kind '{name}' has the name of a tool's "
                       "own key"):
        Registry("toolhost-x").add_kind(kind)  # type: ignore[arg-type]


def test_rules_carry_the_plugin_layer_and_origin() -> None:
    reg = Registry("toolhost-x")
    reg.add_rules(allow=["mcp__s__*"], deny=["mcp__s__a", {"tool": "mcp__s__b", "message": "no"}])
    assert [(r.effect, r.tool, r.origin.key_path) for r in reg.rules] == [
        ("deny", "mcp__s__a", "permissions.deny[0]"),
        ("deny", "mcp__s__b", "permissions.deny[1]"),
        ("allow", "mcp__s__*", "permissions.allow[0]")]
    assert {r.layer for r in reg.rules} == {"plugin:toolhost-x"}
    assert reg.rules[0].origin.file == "plugin:toolhost-x"
