"""A lock is committed: a repository named by a relative local path is pinned by that path
(relative to the lock), not by this machine's absolute file:// URL, so a colleague's or CI's
checkout in another directory loads it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.config import load_config
from toolhost.lockfile import lock_path

BASE = "servers:\n  team:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n"


def _project(root: Path, make_repo: Callable[..., str], repo: str) -> Path:
    make_repo(root / "team-config", {"base.yaml": BASE}, tag="v1.0.0")
    config = root / "proj" / "toolhost.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("toolhost: 1\nextends:\n"
                      f"  - {{repo: {repo}, rev: v1.0.0, path: base.yaml}}\n")
    return config


def test_a_relative_repo_path_is_pinned_relative_to_the_lock(
        tmp_path: Path, make_repo: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    config = _project(tmp_path / "alice", make_repo, "../team-config")
    write_for(str(config))
    assert list(json.loads(lock_path(config).read_text())["sources"]) == [
        "repo:../team-config@v1.0.0"]
    # the same checkout, elsewhere on another disk, with an empty cache
    shutil.move(tmp_path / "alice", tmp_path / "bob")
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "bob-cache"))
    moved = tmp_path / "bob" / "proj" / "toolhost.yaml"
    assert "add" in load_config(moved).servers["team"].tools
    assert write_for(str(moved), dry_run=True) == []


def test_a_lock_an_older_toolhost_keyed_by_the_absolute_url_still_loads_here(
        tmp_path: Path, make_repo: Callable[..., str]) -> None:
    config = _project(tmp_path, make_repo, "../team-config")
    write_for(str(config))
    where = lock_path(config)
    old = where.read_text().replace("repo:../team-config@",
                                    f"repo:{(tmp_path / 'team-config').as_uri()}@")
    where.write_text(old)
    assert "add" in load_config(config).servers["team"].tools  # this machine: as before
    found = write_for(str(config), dry_run=True)  # `lock --check`: says what to do
    assert any("relative to the lock" in line for line in found), found


@pytest.mark.parametrize("form", ["absolute", "url"])
def test_an_absolute_path_or_a_url_keeps_its_url_as_the_key(
        tmp_path: Path, make_repo: Callable[..., str], form: str) -> None:
    repo = tmp_path / "team-config"
    config = _project(tmp_path, make_repo, str(repo) if form == "absolute" else repo.as_uri())
    write_for(str(config))
    assert list(json.loads(lock_path(config).read_text())["sources"]) == [
        f"repo:{repo.as_uri()}@v1.0.0"]
