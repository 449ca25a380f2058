"""A team repository whose fragment extends another repository by a relative path
(``repo: ../other-config``): relative to the repository's URL, as a git submodule's relative
URL is, never to the checkout's directory in the cache; pinned portably in the lock."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.config import load_config
from toolhost.config.repolinks import relative_to_url
from toolhost.errors import ConfigError
from toolhost.lockfile import lock_path

A = ("toolhost: 1\nextends:\n  - {repo: ../rb, rev: v1.0.0, path: b.yaml}\n"
     "servers:\n  a:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n")
B = "toolhost: 1\nservers:\n  b:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n"


def test_a_repository_extending_a_sibling_by_a_relative_path(
        tmp_path: Path, make_repo: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "alice"
    make_repo(root / "ra", {"base.yaml": A}, tag="v1.0.0")
    make_repo(root / "rb", {"b.yaml": B}, tag="v1.0.0")
    config = root / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n  - {repo: ../ra, rev: v1.0.0, path: base.yaml}\n")
    loaded = load_config(config)  # was: git ls-remote of <cache>/repos/rb, "not a git repository"
    assert set(loaded.servers) == {"a", "b"}
    write_for(str(config))
    assert sorted(json.loads(lock_path(config).read_text())["sources"]) == [
        "repo:../ra@v1.0.0", "repo:../rb@v1.0.0"]
    # the same checkouts elsewhere, with an empty cache: the lock holds
    shutil.move(root, tmp_path / "bob")
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "bob-cache"))
    moved = tmp_path / "bob" / "proj" / "toolhost.yaml"
    assert set(load_config(moved).servers) == {"a", "b"}
    assert write_for(str(moved), dry_run=True) == []


@pytest.mark.parametrize(("base", "relative", "expected"), [
    ("https://git.example/team/ra", "../rb", "https://git.example/team/rb"),
    ("https://git.example/team/ra.git/", "../rb.git", "https://git.example/team/rb.git"),
    ("https://git.example/team/ra", "./sub", "https://git.example/team/ra/sub"),
    ("ssh://git@git.example:2222/team/ra", "../../other/rb",
     "ssh://git@git.example:2222/other/rb"),
    ("git@git.example:team/ra", "../rb", "git@git.example:team/rb"),
    ("file:///srv/git/ra", "../rb", "file:///srv/git/rb"),
])
def test_relative_to_the_repository_url(base: str, relative: str, expected: str) -> None:
    assert relative_to_url(base, relative) == expected


@pytest.mark.parametrize(("base", "relative"), [
    ("https://git.example/team/ra", "../../../etc"),
    ("git@git.example:ra", "../../x"),
    ("file:///ra", "../../x"),
])
def test_climbing_above_the_root_is_a_located_error(base: str, relative: str) -> None:
    with pytest.raises(ConfigError, match="climbs above the root"):
        relative_to_url(base, relative)
