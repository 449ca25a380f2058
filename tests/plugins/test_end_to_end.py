"""A config that enables a plugin and extends a pinned git repo: tools from every source work."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.plugins import kinds_for

MakeRepo = Callable[..., str]

TEAM_BASE = """\
toolhost: 1
extends: [pkg:toolhost-files/presets/readonly.yaml]
servers:
  team:
    tools:
      add: {python: "toolhost.demo:add"}
permissions:
  deny: [mcp__team__danger]
"""

TEAM_SQL = """\
toolhost: 1
plugins: [toolhost-sqlite]
servers:
  inventory:
    tools:
      stock:
        sqlite: {database: stock.db, query: "SELECT :item AS item, 3 AS count"}
        params: {item: {type: string}}
"""


def call_all(config_path: Path) -> dict[str, dict[str, Any]]:
    config = load_config(config_path, layers=False)
    compiled = compile_tools(config, kinds=kinds_for(config.plugins))
    calls: dict[str, dict[str, Any]] = {
        "team.add": {"a": 2, "b": 3}, "files.read": {"path": "notes.md"},
        "inventory.stock": {"item": "bolts"}, "local.add": {"a": 1, "b": 1}}

    async def go() -> dict[str, dict[str, Any]]:
        out = {}
        try:
            for key, arguments in calls.items():
                server, name = key.split(".")
                (tool,) = [t for t in compiled.servers[server] if t.name == name]
                out[key] = (await tool.call(arguments, CallContext())).to_mcp()
        finally:
            await compiled.aclose()
        return out

    return anyio.run(go)


def test_plugin_git_extends_and_local_tools_together(tmp_path: Path,
                                                     make_repo: MakeRepo) -> None:
    stock = tmp_path / "stock.db"
    sqlite3.connect(stock).close()
    origin = tmp_path / "team-config"
    make_repo(origin, {"base.yaml": TEAM_BASE,
                       "sql/inventory.yaml": TEAM_SQL.replace("stock.db", str(stock))},
              tag="v1.0.0")
    make_repo(origin, {"base.yaml": "toolhost: 1\nservers: {}\n"}, tag="v2.0.0")  # unused
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.md").write_text("remember the milk\n")
    app = project / "toolhost.yaml"
    app.write_text(f"""\
toolhost: 1
extends:
  - {{repo: {origin.as_uri()}, rev: v1.0.0, path: base.yaml}}
  - repo: {origin.as_uri()}
    rev: v1.0.0
    path: sql/inventory.yaml
plugins: [toolhost-files, toolhost-sqlite]
servers:
  local:
    tools:
      add: {{python: "toolhost.demo:add"}}
""")
    results = call_all(app)
    assert results["team.add"]["content"][0]["text"] == "5"
    assert results["files.read"]["content"][0]["text"] == "     1\tremember the milk"
    assert results["inventory.stock"]["structuredContent"]["rows"] == [
        {"item": "bolts", "count": 3}]
    assert results["local.add"]["content"][0]["text"] == "2"

    config = load_config(app, layers=False)
    assert config.plugins and {p.name for p in config.plugins} == {"toolhost-files",
                                                                   "toolhost-sqlite"}
    rules = {(r.effect, r.tool, r.layer) for r in config.permissions.rules}
    assert ("deny", "mcp__team__danger", "extends") in rules
    assert ("allow", "mcp__files__read", "plugin:toolhost-files") in rules
    assert config.permissions.default == "ask"  # from the pkg: preset the team base extends

    shutil.rmtree(origin)  # offline: the cache answers
    assert call_all(app)["team.add"]["content"][0]["text"] == "5"
