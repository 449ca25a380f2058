"""A shared repository is checked out as its commit's bytes, and nothing else."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config.gitrepos import repo_file
from toolhost.config.model import Origin
from toolhost.errors import ConfigError

from .conftest import git

MakeRepo = Callable[..., str]
AT = Origin("team.yaml", 3, 5, "extends[0]")
BASE = "servers:\n  team:\n    tools:\n      hi: {description: hi, command: [echo, $Id$]}\n"


def test_attributes_and_user_git_config_do_not_change_the_checkout(
        tmp_path: Path, make_repo: MakeRepo, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """A cross-platform repository's `.gitattributes` (crlf endings, `ident`, a working-tree
    encoding, an LFS-style filter) and a user's global `core.autocrlf` and filter driver once
    made git write other bytes than the commit's: the work-tree check called every checkout
    "modified on disk", cloned it again and refused it."""
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": BASE, "notes.txt": "plain\n", "data.bin": "quiet\n"})
    origin.joinpath(".gitattributes").write_text(
        "* text eol=crlf ident\n*.txt working-tree-encoding=UTF-16\n*.bin filter=shout\n")
    git(origin, "add", ".gitattributes")  # alone: `add -A` would convert notes.txt
    git(origin, "commit", "-qm", "attributes")
    git(origin, "tag", "v1")
    home = tmp_path / "home"
    home.mkdir()
    # the user's own git config: applies to clones unless toolhost keeps it away
    home.joinpath(".gitconfig").write_text(
        "[core]\n\tautocrlf = true\n[filter \"shout\"]\n\tsmudge = tr a-z A-Z\n"
        "\tclean = cat\n\trequired = true\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    caplog.set_level("WARNING", logger="toolhost.config")

    base = repo_file(origin.as_uri(), "v1", "base.yaml", where=AT, cache=tmp_path / "cache")

    assert base.read_bytes() == BASE.encode()  # no CRLF, no `$Id: ...$` expansion
    assert base.with_name("notes.txt").read_bytes() == b"plain\n"  # not UTF-16
    assert base.with_name("data.bin").read_bytes() == b"quiet\n"  # no smudge filter ran
    assert not base.parent.joinpath(".git", "info", "attributes").exists()
    assert "modified on disk" not in caplog.text


def test_a_repository_committing_the_cache_record_is_refused_once_clearly(
        tmp_path: Path, make_repo: MakeRepo) -> None:
    """A repository with its own `.toolhost-checkout.json` was overwritten by the cache's
    record: every load then said "modified on disk", fetched it again and refused it."""
    origin = tmp_path / "origin"
    make_repo(origin, {"base.yaml": BASE, ".toolhost-checkout.json": "{}\n"}, tag="v1")
    cache = tmp_path / "cache"
    with pytest.raises(ConfigError) as info:
        repo_file(origin.as_uri(), "v1", "base.yaml", where=AT, cache=cache)
    assert str(info.value) == (
        f"team.yaml:3:5: extends[0]: {origin.as_uri()} at v1 commits a file named "
        ".toolhost-checkout.json, the name toolhost keeps for its own record of a cached "
        "checkout (rename or remove .toolhost-checkout.json in the repository)")
    assert not list(cache.joinpath("repos").glob("*/base.yaml"))  # nothing half-cached
