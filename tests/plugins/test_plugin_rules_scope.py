"""A plugin's allow rules cover its own tools only: enabling a plugin for its file tools must
not allow the config's tools, another plugin's, or Claude's own (Bash, WebFetch)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.permissions import compile_policy

MakePlugin = Callable[..., Path]

PLUGIN = """
    def look(path: str) -> str:
        '''Look at a file.'''
        return path

    def peek(path: str) -> str:
        '''Peek at a file.'''
        return path

    def register(reg):
        reg.add_server('{server}')
        reg.add_tool(look, server='{server}')
        reg.add_tool(peek, server='{server}')
        reg.add_rules(allow=[{rules}], deny=['mcp__db__drop'])
"""

CONFIG = """\
toolhost: 1
plugins: [{plugins}]
servers:
  db:
    tools:
      query: {{description: q, command: [echo, q]}}
      drop: {{description: d, command: [echo, d]}}
"""

OTHERS = ["mcp__db__query", "Bash", "WebFetch", "Read", "mcp__other__look"]


def _decide(config_path: Path, tool: str) -> str:
    config = load_config(config_path)
    return compile_policy(config.permissions).decide(tool, {"command": "rm -rf /"}).behavior


@pytest.mark.parametrize("rule", [
    "'*'", "'mcp__*'", "'Bash'", "'WebFetch'", "'Read'", "'mcp__db'", "'mcp__db__*'",
    "'mcp__db__query'", "'mcp__lo*'", "'mcp__other'", "'mcp__other__*'"])
def test_an_allow_beyond_the_plugins_own_tools_is_left_out(
        tmp_path: Path, make_plugin: MakePlugin, rule: str,
        caplog: pytest.LogCaptureFixture) -> None:
    make_plugin("toolhost-wide", modules={"wide_plugin": PLUGIN.format(server="look",
                                                                        rules=rule)})
    make_plugin("toolhost-other", modules={"other_plugin": PLUGIN.format(server="other",
                                                                          rules="")})
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG.format(plugins="toolhost-wide, toolhost-other"))
    caplog.set_level("WARNING", logger="toolhost.plugins")
    for tool in OTHERS:
        assert _decide(config, tool) != "allow", (rule, tool)
    assert _decide(config, "mcp__db__drop") == "deny"  # a plugin's deny stays: it only narrows
    assert f"allow rule {rule}" in caplog.text and "left out" in caplog.text


@pytest.mark.parametrize("rule", ["'mcp__look'", "'mcp__look__*'", "'mcp__look__look'",
                                  "{'tool': 'mcp__look__look', 'when': {'path': 'a'}}"])
def test_an_allow_of_the_plugins_own_tools_stays(tmp_path: Path, make_plugin: MakePlugin,
                                                 rule: str) -> None:
    make_plugin("toolhost-own", modules={"own_plugin": PLUGIN.format(server="look",
                                                                      rules=rule)})
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG.format(plugins="toolhost-own"))
    loaded = load_config(config)
    rules = compile_policy(loaded.permissions)
    assert rules.decide("mcp__look__look", {"path": "a"}).behavior == "allow"
    assert rules.decide("mcp__db__query", {}).behavior != "allow"


def test_a_server_two_plugins_add_tools_to_is_neither_ones_to_allow_whole(
        tmp_path: Path, make_plugin: MakePlugin) -> None:
    make_plugin("toolhost-own", modules={"own_plugin": PLUGIN.format(
        server="look", rules="'mcp__look__*', 'mcp__look__look'")})
    make_plugin("toolhost-guest", modules={"guest_plugin": """
        def wipe() -> str:
            '''Wipe.'''
            return "wiped"

        def register(reg):
            reg.add_tool(wipe, server='look')
    """})
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG.format(plugins="toolhost-own, toolhost-guest"))
    loaded = load_config(config)
    assert set(loaded.servers["look"].tools) == {"look", "peek", "wipe"}
    rules = compile_policy(loaded.permissions)
    assert rules.decide("mcp__look__wipe", {}).behavior != "allow"
    assert rules.decide("mcp__look__look", {"path": "a"}).behavior == "allow"  # its own, by name
