"""A tag moved upstream and moved back: a cache that cloned it while it was moved holds the
commit nobody reviewed. Loads kept refusing it for ever, and the hint (`toolhost lock`)
accepted that commit, which upstream no longer has at the tag."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.config import load_config
from toolhost.errors import ConfigError
from toolhost.lockfile import lock_path

from .conftest import git

BASE = "servers:\n  team:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n"


def test_a_tag_moved_and_moved_back_loads_the_reviewed_commit_again(
        tmp_path: Path, make_repo: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    origin = tmp_path / "team-config"
    reviewed = make_repo(origin, {"base.yaml": BASE}, tag="v1.0.0")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n"
                      "  - {repo: ../team-config, rev: v1.0.0, path: base.yaml}\n")
    write_for(str(config))
    locked = lock_path(config).read_text()

    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "new-machine-cache"))
    make_repo(origin, {"base.yaml": BASE.replace("add", "drop")})
    git(origin, "tag", "-f", "v1.0.0")  # moved: this machine's first clone gets it
    with pytest.raises(ConfigError, match=r"changed since toolhost\.lock"):
        load_config(config)

    git(origin, "tag", "-f", "v1.0.0", reviewed)  # moved back upstream
    assert "add" in load_config(config).servers["team"].tools
    assert write_for(str(config)) == []  # `toolhost lock` accepts nothing new
    assert lock_path(config).read_text() == locked
    assert json.loads(locked)["sources"]["repo:../team-config@v1.0.0"]["commit"] == reviewed


@pytest.mark.parametrize("cached", [False, True], ids=["fresh-cache", "cache-saw-a-move"])
def test_a_tag_moved_to_a_commit_without_the_file_says_the_tag_moved(
        tmp_path: Path, make_repo: Callable[..., str], monkeypatch: pytest.MonkeyPatch,
        cached: bool) -> None:
    """The moved tag is the news, not `cannot read: No such file`: the lock's diff is shown."""
    origin = tmp_path / "team-config"
    reviewed = make_repo(origin, {"base.yaml": BASE}, tag="v1.0.0")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n"
                      "  - {repo: ../team-config, rev: v1.0.0, path: base.yaml}\n")
    write_for(str(config))
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "new-machine-cache"))
    if cached:  # this cache cloned a first move, then upstream moved the tag again
        make_repo(origin, {"base.yaml": BASE.replace("add", "drop")})
        git(origin, "tag", "-f", "v1.0.0")
        with pytest.raises(ConfigError, match=r"changed since toolhost\.lock"):
            load_config(config)
    git(origin, "rm", "-q", "base.yaml")
    git(origin, "commit", "-q", "-m", "moved away")
    git(origin, "tag", "-f", "v1.0.0")
    with pytest.raises(ConfigError) as info:
        load_config(config)
    text = str(info.value)
    assert "changed since toolhost.lock" in text and reviewed[:12] in text, text
    assert "(the tag moved)" in text and "No such file" not in text, text
    assert "deleted file" in text and "-      add:" in text, text  # the diff of the file
