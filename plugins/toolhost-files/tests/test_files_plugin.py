"""toolhost-files through toolhost's loader and compiler: tools, confinement, its rules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import CompiledTool, CompiledTools, compile_tools
from toolhost.config.loader import load_config
from toolhost.errors import ConfigError
from toolhost.plugins import activate


@pytest.fixture
def project(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "guide").mkdir(parents=True)
    (docs / "guide" / "intro.md").write_text("# Intro\nhello toolhost\nbye\n")
    (docs / "notes.txt").write_text("TODO: write more\n")
    (docs / ".env").write_text("TOKEN=hunter2\n")
    (docs / "server.pem").write_text("-----BEGIN hello-----\n")
    (tmp_path / "outside.txt").write_text("hello from outside\n")
    os.symlink(tmp_path / "outside.txt", docs / "link.txt")
    (tmp_path / "app.yaml").write_text(
        "toolhost: 1\nplugins: [toolhost-files]\n"
        "settings:\n  toolhost-files: {root: docs}\n")
    return tmp_path / "app.yaml"


@pytest.fixture
def tools(project: Path) -> Iterator[dict[str, CompiledTool]]:
    config = load_config(project, layers=False)
    compiled: CompiledTools = compile_tools(config, kinds=activate(config.plugins).kinds)
    yield {t.name: t for t in compiled.servers["files"]}
    anyio.run(compiled.aclose)


def call(tool: CompiledTool, **arguments: Any) -> dict[str, Any]:
    async def go() -> dict[str, Any]:
        return (await tool.call(arguments, CallContext())).to_mcp()
    return anyio.run(go)


def test_list_search_and_read_inside_the_root(tools: dict[str, CompiledTool]) -> None:
    assert set(tools) == {"list", "search", "read"}
    assert tools["read"].annotations["readOnlyHint"] is True
    listed = call(tools["list"])["structuredContent"]
    assert listed == {"files": ["guide/intro.md", "notes.txt"], "truncated": False}
    assert call(tools["list"], glob="*.md")["structuredContent"]["files"] == ["guide/intro.md"]
    found = call(tools["search"], pattern="hello")["structuredContent"]
    assert found["matches"] == [{"path": "guide/intro.md", "line": 2, "text": "hello toolhost"}]
    read = call(tools["read"], path="guide/intro.md", offset=2, limit=1)
    assert read == {"content": [{"type": "text", "text": "     2\thello toolhost"}],
                    "isError": False}


@pytest.mark.parametrize(("path", "why"), [
    (".env", "may hold secrets"),
    ("guide/../.env", "may hold secrets"),
    ("server.pem", "may hold secrets"),
    ("../outside.txt", "outside the files root"),
    ("link.txt", "outside the files root"),
    ("/etc/passwd", "is absolute"),
    ("guide", "is not a file"),
])
def test_read_refuses_paths_outside_the_root_and_secrets(
        tools: dict[str, CompiledTool], path: str, why: str) -> None:
    out = call(tools["read"], path=path)
    assert out["isError"] is True and why in out["content"][0]["text"]


def test_rules_travel_with_the_plugin(project: Path) -> None:
    from toolhost.permissions import compile_policy

    config = load_config(project, layers=False)
    assert {r.layer for r in config.permissions.rules} == {"plugin:toolhost-files"}
    policy = compile_policy(config.permissions, tool_names=["mcp__files__read"])
    for path in (".env", "a/.env.local", "../x", "/etc/passwd", "keys/id_rsa"):
        decision = policy.decide("mcp__files__read", {"path": path})
        assert decision.behavior == "deny", path
    assert policy.decide("mcp__files__read", {"path": "notes.txt"}).behavior == "allow"


def test_settings_are_checked_against_the_plugin_schema(tmp_path: Path) -> None:
    path = tmp_path / "app.yaml"
    path.write_text("toolhost: 1\nplugins: [toolhost-files]\n"
                    "settings:\n  toolhost-files:\n    root: 3\n    colour: red\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, layers=False)
    text = str(info.value)
    assert "settings.toolhost-files.root: 3 is not of type 'string'" in text
    assert "settings.toolhost-files.colour: unknown setting (settings: root, deny_globs)" in text
