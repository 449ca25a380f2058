"""The project's lock is the team's: one person's user file and toolhost.local.* are not in it."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.config import load_config
from toolhost.errors import ConfigError

from .conftest import git

MakeRepo = Callable[..., str]
TEAM = "servers:\n  team:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n"
MINE = "servers:\n  mine:\n    tools:\n      mul: {python: 'toolhost.demo:word_count'}\n"


def extends(origin: Path, path: str) -> str:
    return f"toolhost: 1\nextends:\n  - {{repo: {origin.as_uri()}, rev: v1, path: {path}}}\n"


@pytest.mark.parametrize("layer", ["user", "local"])
def test_a_personal_layers_sources_are_checked_by_its_own_lock(
        tmp_path: Path, make_repo: MakeRepo, layer: str) -> None:
    """A user file (or the git-ignored local file) extending a repository made every locked
    project refuse to load ("not in toolhost.lock"), and `toolhost lock` then wrote that
    person's source into the shared lock, where `lock --check` failed for everyone else."""
    team, mine = tmp_path / "team", tmp_path / "mine"
    make_repo(team, {"base.yaml": TEAM}, tag="v1")
    make_repo(mine, {"mine.yaml": MINE}, tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(extends(team, "base.yaml"))
    assert write_for(str(config)) == [f"+ repo:{team.as_uri()}@v1 "
                                      f"{git(team, 'rev-parse', 'v1')[:12]} (1 file(s))\n"
                                      "    tool: team.add calls toolhost.demo:add "
                                      "(base.yaml:4)"]
    shared = config.with_suffix(".lock").read_text()
    personal = (tmp_path / "xdg" / "toolhost" / "config.yaml" if layer == "user"
                else config.with_name("toolhost.local.yaml"))
    personal.parent.mkdir(parents=True, exist_ok=True)
    personal.write_text(extends(mine, "mine.yaml"))

    loaded = load_config(config)  # the project's lock neither requires nor records it
    assert set(loaded.servers) == {"team", "mine"}
    assert write_for(str(config), dry_run=True) == []  # `lock --check`: up to date
    assert write_for(str(config)) == []
    assert config.with_suffix(".lock").read_text() == shared

    # the person's own lock, beside their file, pins their sources on every load
    assert write_for(str(personal), layers=False)
    assert personal.with_suffix(".lock").is_file()
    make_repo(mine, {"mine.yaml": MINE + "# moved\n"})
    git(mine, "tag", "-f", "v1")
    for cached in (tmp_path / "toolhost-cache" / "repos").glob("*/mine.yaml"):
        shutil.rmtree(cached.parent)  # a fresh machine: the moved tag is cloned
    with pytest.raises(ConfigError) as info:
        load_config(config)
    assert info.value.problems[0].file == str(personal)
    assert f"changed since {personal.with_suffix('.lock').name}" in str(info.value)


def test_a_plugin_only_a_personal_file_enables_is_pinned_by_its_own_lock(
        tmp_path: Path) -> None:
    """The user's file enabling a plugin made every locked project refuse to load ("plugin
    toolhost-files 0.1.0 is installed, not in the lock"), and `toolhost lock` wrote it into
    the team's lock."""
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      a: {description: a, command: [echo, a]}\n")
    assert write_for(str(config)) == []
    shared = config.with_suffix(".lock").read_text()
    personal = tmp_path / "xdg" / "toolhost" / "config.yaml"
    personal.parent.mkdir(parents=True)
    personal.write_text("toolhost: 1\nplugins: [toolhost-files]\n"
                        f"settings:\n  toolhost-files: {{root: {tmp_path}}}\n")

    assert "files" in load_config(config).servers  # the project's lock does not ask for it
    assert write_for(str(config)) == [] and write_for(str(config), dry_run=True) == []
    assert config.with_suffix(".lock").read_text() == shared

    assert write_for(str(personal), layers=False) == [
        "+ plugin toolhost-files: absent -> 0.1.0"]
    mine = personal.with_suffix(".lock")
    mine.write_text(mine.read_text().replace('"0.1.0"', '"0.0.9"'))  # another release
    with pytest.raises(ConfigError) as info:
        load_config(config)
    (problem,) = info.value.problems
    assert problem.file == str(personal)
    assert "plugin toolhost-files 0.1.0 is installed, locked at 0.0.9 (config.lock)" in str(
        problem)
