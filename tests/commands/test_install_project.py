"""A project's .mcp.json is committed: `install claude-code` writes no path of this machine
there, and `serve --project-relative` finds the config from a subdirectory, where Claude
Code starts a project's servers when it was started there (checked with the real CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.cli import main
from toolhost.commands.serve import project_config
from toolhost.errors import ToolhostError

CONFIG = "toolhost: 1\nservers:\n  proj:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n"


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / "tools").mkdir()
    (project / "tools" / "toolhost.yaml").write_text(CONFIG)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(project)
    return project


def test_project_entry_holds_no_path_of_this_machine(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path, monkeypatch)
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    text = (project / ".mcp.json").read_text()
    assert str(tmp_path) not in text and os.sep + "bin" not in text
    entry = json.loads(text)["mcpServers"]["proj"]
    assert entry == {"type": "stdio", "command": "toolhost",
                     "args": ["serve", "--project-relative", "tools/toolhost.yaml",
                              "--server", "proj"]}
    assert "each colleague needs toolhost" in capsys.readouterr().out
    # from anywhere inside the project, the entry's config is the project's
    for where in (project, project / "sub"):
        assert project_config("tools/toolhost.yaml", str(where)) == str(
            project / "tools" / "toolhost.yaml")
    assert project_config("/abs/x.yaml", str(project)) == "/abs/x.yaml"
    with pytest.raises(ToolhostError, match=r"no \.mcp\.json in .* or any directory above"):
        project_config("toolhost.yaml", str(tmp_path))
    # the same install again changes nothing
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    assert "already installed" in capsys.readouterr().out


def test_absolute_and_other_scopes_keep_this_machines_paths(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path, monkeypatch)
    assert main(["install", "claude-code", "tools/toolhost.yaml", "--absolute"]) == 0
    args = json.loads((project / ".mcp.json").read_text())["mcpServers"]["proj"]["args"]
    assert str(project / "tools" / "toolhost.yaml") in args
    assert "--project-relative" not in args
    # an entry with this machine's paths (older toolhost, or --absolute): the way out is said
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 1
    assert "It holds this machine's paths" in capsys.readouterr().err
    assert main(["install", "claude-code", "tools/toolhost.yaml", "--force"]) == 0
    assert "--project-relative" in json.loads((project / ".mcp.json").read_text())[
        "mcpServers"]["proj"]["args"]
    assert main(["install", "claude-code", "tools/toolhost.yaml", "--scope", "user"]) == 0
    user = json.loads((tmp_path / "home" / ".claude.json").read_text())
    assert str(project / "tools" / "toolhost.yaml") in user["mcpServers"]["proj"]["args"]


def test_real_cli_starts_the_entry_from_a_subdirectory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from toolhost.runner.discovery import bundled_cli

    claude = bundled_cli()  # the pinned CLI of the test environment
    assert claude is not None, "claude-agent-sdk (the pinned CLI) is a test dependency"
    project = _project(tmp_path, monkeypatch)
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text('{"enableAllProjectMcpServers": true}')  # approve project servers
    bindir = Path(sys.executable).parent  # this install's toolhost script is on PATH
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run([str(claude), "mcp", "list"], cwd=project / "sub", env=env,
                          capture_output=True, text=True, timeout=120)
    assert "toolhost serve --project-relative tools/toolhost.yaml" in done.stdout, done
    assert "Connected" in done.stdout, done.stdout + done.stderr


def test_a_toolhost_on_path_that_is_not_this_one_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Claude Code runs the `toolhost` PATH finds: none (a virtualenv not activated) or
    another one (an older toolhost, another program of that name) is warned about, with the
    fix, also when the entry was already installed."""
    _project(tmp_path, monkeypatch)
    other = tmp_path / "otherbin"
    other.mkdir()
    (other / "toolhost").write_text("#!/bin/sh\nexit 2\n")
    (other / "toolhost").chmod(0o755)
    monkeypatch.setenv("PATH", str(other))
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    err = capsys.readouterr().err
    assert f"the `toolhost` on PATH here is {other / 'toolhost'}, not this one" in err
    assert "--absolute" in err
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    out, err = capsys.readouterr()
    assert "already installed" in out and "`toolhost` is not on PATH here" in err
    here = os.path.dirname(sys.executable)
    if os.path.isfile(os.path.join(here, "activate")):
        assert f"`source {os.path.join(here, 'activate')}`" in err
    monkeypatch.setenv("PATH", here)
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_uninstall_removes_only_the_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    project = _project(tmp_path, monkeypatch)
    mcp = project / ".mcp.json"
    mcp.write_text('{"mcpServers": {"other": {"command": "x"}}, "keep": [1]}\n')
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    assert main(["install", "claude-code", "tools/toolhost.yaml", "--uninstall",
                 "--dry-run"]) == 0
    assert '-    "proj": {' in capsys.readouterr().out and "proj" in mcp.read_text()
    assert main(["install", "claude-code", "tools/toolhost.yaml", "--uninstall"]) == 0
    assert "removed 'proj' (backup: " in capsys.readouterr().out
    assert json.loads(mcp.read_text()) == {"mcpServers": {"other": {"command": "x"}},
                                           "keep": [1]}
    # again: nothing to remove, said; a config gone: the name is asked for
    assert main(["install", "claude-code", "tools/toolhost.yaml", "--uninstall"]) == 0
    assert "no entry 'proj'; nothing was changed (its entries: 'other')" in \
        capsys.readouterr().out
    (project / "tools" / "toolhost.yaml").unlink()
    assert main(["install", "claude-code", "tools/toolhost.yaml", "--uninstall"]) == 1
    assert "--uninstall --name KEY" in capsys.readouterr().err
    assert main(["install", "claude-code", "gone.yaml", "--uninstall", "--name", "other"]) == 0
    assert json.loads(mcp.read_text()) == {"mcpServers": {}, "keep": [1]}


def test_an_entry_below_the_git_repositorys_top_is_warned_about(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Claude Code started at a repository's top never reads a .mcp.json below it: installed
    in a subdirectory, the entry is written (claude may be started there) and the command
    run from the top is said."""
    project = _project(tmp_path, monkeypatch)
    (project / ".git").mkdir()
    monkeypatch.chdir(project / "tools")
    assert main(["install", "claude-code", "toolhost.yaml"]) == 0
    err = capsys.readouterr().err
    assert (f"toolhost: warning: {project / 'tools' / '.mcp.json'} is below the top of its git "
            f"repository ({project})") in err
    assert f"run `toolhost install claude-code tools/toolhost.yaml` in {project}" in err
    monkeypatch.chdir(project)  # at the top: nothing to say
    assert main(["install", "claude-code", "tools/toolhost.yaml"]) == 0
    assert "below the top" not in capsys.readouterr().err
