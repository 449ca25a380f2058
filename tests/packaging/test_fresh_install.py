"""toolhost and both example plugins installed from wheels into a new venv, used from outside.

A config enables one plugin and extends a file:// git repo pinned to a tag; tools from each
source answer; a plugin that is not installed fails with the pip command that fixes it; an
installed plugin the config does not enable is never imported.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import textwrap
from pathlib import Path

import pytest

from .fresh_venv import Venv

# Loads a config through the public API, calls tools, reports what it imported.
PROBE = '''\
import asyncio, json, sys
import toolhost
from toolhost.backends.base import CallContext

async def main() -> dict:
    host = toolhost.load_host(sys.argv[1])
    try:
        tools = {f"{s}__{t.name}": t for s, ts in host.tools.items() for t in ts}
        results = {}
        for name, arguments in json.loads(sys.argv[2]).items():
            result = await tools[name].call(arguments, CallContext())
            results[name] = [result.is_error, result.text_content]
    finally:
        await host.aclose()
    return {"results": results, "toolhost": toolhost.__file__,
            "modules": sorted({m.split(".")[0] for m in sys.modules if m.startswith("toolhost_")})}

print(json.dumps(asyncio.run(main())))
'''


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=Test",
                    "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false", *args],
                   cwd=cwd, check=True, capture_output=True, timeout=60)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A team config repo (tags v1.0.0 and v2.0.0) and a project that pins v1.0.0 of it."""
    team = tmp_path / "team-config"
    team.mkdir()
    _git(team, "init", "-q")
    for tag in ("v1.0.0", "v2.0.0"):
        (team / "python.yaml").write_text(textwrap.dedent(f"""\
            toolhost: 1
            servers:
              team:
                description: Shared by the team
                tools:
                  greet:
                    description: Greet someone
                    command: ["echo", "{tag} hello {{{{ name }}}}"]
                    params:
                      name: {{type: string}}
            """))
        _git(team, "add", "-A")
        _git(team, "commit", "-q", "-m", tag)
        _git(team, "tag", tag)

    app = tmp_path / "app"
    (app / "docs").mkdir(parents=True)
    (app / "docs" / "notes.md").write_text("# Notes\nthe kettle is in the attic\n")
    (app / "docs" / ".env").write_text("TOKEN=secret\n")
    (app / "probe.py").write_text(PROBE)
    (app / "toolhost.yaml").write_text(textwrap.dedent(f"""\
        toolhost: 1
        extends:
          - repo: {team.as_uri()}
            rev: v1.0.0
            path: python.yaml
        plugins: [toolhost-files]
        settings:
          toolhost-files: {{root: docs}}
        servers:
          local:
            tools:
              shout:
                command: ["echo", "{{{{ text }}}}!"]
                params:
                  text: {{type: string}}
        """))
    return app


def test_the_fresh_venv_runs_the_installed_wheels(fresh: Venv, tmp_path: Path) -> None:
    code = ("import toolhost, toolhost_files, toolhost_sqlite; print(toolhost.__file__); "
            "print(toolhost_files.__file__); print(toolhost_sqlite.__file__)")
    files = fresh.run("python", "-c", code, cwd=tmp_path).stdout.split()
    assert len(files) == 3
    for file in files:
        assert Path(file).is_relative_to(fresh.path), file

    listing = fresh.run("toolhost", "plugins", cwd=tmp_path).stdout
    assert "toolhost 0.1.0  [built in, always enabled]" in listing
    assert "toolhost-files 0.1.0" in listing and "kinds: sqlite" in listing
    assert "fragments: pkg:toolhost-files/presets/readonly.yaml" in listing


def test_plugin_and_pinned_repo_tools_answer(fresh: Venv, project: Path) -> None:
    assert "toolhost.yaml: ok (3 servers, 5 tools)" in fresh.run(
        "toolhost", "validate", "toolhost.yaml", cwd=project).stdout
    greet = fresh.run("toolhost", "call", "toolhost.yaml", "mcp__team__greet", "name=ada",
                      cwd=project)
    assert greet.stdout.strip() == "v1.0.0 hello ada"  # the pin, not the newest tag
    read = fresh.run("toolhost", "call", "toolhost.yaml", "mcp__files__read", "path=notes.md",
                     cwd=project)
    assert "the kettle is in the attic" in read.stdout
    secret = fresh.run("toolhost", "call", "toolhost.yaml", "mcp__files__read", "path=.env",
                       cwd=project, check=False)
    assert secret.returncode == 1 and "TOKEN" not in secret.stdout

    calls = {"team__greet": {"name": "bo"}, "local__shout": {"text": "hi"},
             "files__search": {"pattern": "kettle"}}
    probe = json.loads(fresh.run("python", "probe.py", "toolhost.yaml", json.dumps(calls),
                                 cwd=project).stdout)
    assert Path(probe["toolhost"]).is_relative_to(fresh.path)
    assert probe["results"]["team__greet"] == [False, "v1.0.0 hello bo\n"]
    assert probe["results"]["local__shout"] == [False, "hi!\n"]
    assert probe["results"]["files__search"][0] is False
    assert json.loads(probe["results"]["files__search"][1])["matches"] == [
        {"path": "notes.md", "line": 2, "text": "the kettle is in the attic"}]
    # Installed is not enabled: toolhost-sqlite is installed, and never imported.
    assert probe["modules"] == ["toolhost_files"]


def test_cli_imports_only_the_enabled_plugin(fresh: Venv, project: Path) -> None:
    # The `toolhost` console script's own code, reporting sys.modules as the process exits.
    code = ("import atexit, sys; from toolhost.cli import main; atexit.register(lambda: print("
            "sorted({m.split('.')[0] for m in sys.modules if m.startswith('toolhost_')}), "
            "file=sys.stderr)); sys.exit(main(sys.argv[1:]))")
    for command in (["call", "toolhost.yaml", "mcp__local__shout", "text=hey"],
                    ["tools", "toolhost.yaml"], ["validate", "toolhost.yaml"]):
        proc = fresh.run("python", "-c", code, *command, cwd=project)
        assert proc.stderr.splitlines()[-1] == "['toolhost_files']", command
    assert proc.stdout.strip() == "toolhost.yaml: ok (3 servers, 5 tools)"


def test_a_plugin_that_is_not_installed_fails_with_an_install_hint(
        fresh: Venv, tmp_path: Path) -> None:
    (tmp_path / "app.yaml").write_text(
        "toolhost: 1\nplugins:\n  - toolhost-files\n  - toolhost-nope>=1.2\n")
    proc = fresh.run("toolhost", "validate", "app.yaml", cwd=tmp_path, check=False)
    assert proc.returncode == 1
    assert ("app.yaml:4:5: plugins[1]: plugin 'toolhost-nope' is not installed "
            "(pip install 'toolhost-nope>=1.2')") in proc.stderr
    probe = fresh.run("python", "-c", "import toolhost; toolhost.load_config('app.yaml')",
                      cwd=tmp_path, check=False)
    assert probe.returncode == 1
    assert "toolhost.errors.ConfigError" in probe.stderr
    assert "pip install 'toolhost-nope>=1.2'" in probe.stderr

    (tmp_path / "old.yaml").write_text("toolhost: 1\nplugins: ['toolhost-sqlite>=2']\n")
    proc = fresh.run("toolhost", "validate", "old.yaml", cwd=tmp_path, check=False)
    assert proc.returncode == 1
    assert "plugin 'toolhost-sqlite' 0.1.0 is installed, but the config needs" in proc.stderr
    assert "(pip install 'toolhost-sqlite>=2')" in proc.stderr


def test_toml_config_with_the_backend_plugin_and_a_packaged_preset(
        fresh: Venv, tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "shop.db") as db:
        db.execute("CREATE TABLE stock (sku TEXT, qty INTEGER)")
        db.executemany("INSERT INTO stock VALUES (?, ?)", [("kettle", 3), ("mug", 40)])
    db.close()
    (tmp_path / "app.toml").write_text(textwrap.dedent("""\
        toolhost = 1
        extends = ["pkg:toolhost-files/presets/readonly.yaml"]
        plugins = ["toolhost-sqlite>=0.1,<1"]

        [servers.shop.tools.low]
        description = "Products below a stock level"
        sqlite = { database = "shop.db", query = "SELECT sku FROM stock WHERE qty < :below" }
        params = { below = { type = "integer" } }
        """))
    calls = {"shop__low": {"below": 10}, "files__list": {"glob": "*.toml"}}
    (tmp_path / "probe.py").write_text(PROBE)
    probe = json.loads(fresh.run("python", "probe.py", "app.toml", json.dumps(calls),
                                 cwd=tmp_path).stdout)
    assert probe["results"]["shop__low"][0] is False
    assert "kettle" in probe["results"]["shop__low"][1]
    assert "mug" not in probe["results"]["shop__low"][1]
    assert probe["results"]["files__list"] == [False, probe["results"]["files__list"][1]]
    assert "app.toml" in probe["results"]["files__list"][1]
    assert probe["modules"] == ["toolhost_files", "toolhost_sqlite"]
