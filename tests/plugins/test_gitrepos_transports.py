"""A team repo's URL never makes git run a program: `ext::`, `ext://`, `fd::` and remote
helpers (`SCHEME://` runs `git-remote-SCHEME` from PATH) are refused before git starts, and
git itself is told the protocols it may use whatever the user's config allows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from toolhost.config.gitrepos import fetch_repo, list_tags, resolve_git_entry
from toolhost.config.model import Origin
from toolhost.errors import ConfigError

AT = Origin("team.yaml", 3, 5, "extends[0]")


@pytest.fixture
def helper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A remote helper `git-remote-th7` on PATH that leaves a mark when git starts it, and
    a user git config that allows every protocol (`protocol.allow = always`)."""
    bindir, mark = tmp_path / "bin", tmp_path / "ran"
    bindir.mkdir()
    script = bindir / "git-remote-th7"
    script.write_text(f"#!/bin/sh\ntouch '{mark}'\nexit 1\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    config = tmp_path / "gitconfig"
    config.write_text('[protocol]\n\tallow = always\n[url "th7://host/"]\n'
                      "\tinsteadOf = https://rewritten.example/\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    return mark


@pytest.mark.parametrize("url", ["th7://host/team", "ext://host/team", "ext::sh -c touch% x",
                                 "fd::3", "fd::3,4/team"])
def test_a_transport_that_runs_a_program_is_refused(helper: Path, tmp_path: Path,
                                                    url: str) -> None:
    for attempt in (lambda: fetch_repo(url, "v1", where=AT, cache=tmp_path / "cache"),
                    lambda: list_tags(url, where=AT)):
        with pytest.raises(ConfigError) as caught:
            attempt()
        assert "is not a git URL of a transport toolhost fetches over" in str(caught.value)
        assert str(caught.value).startswith("team.yaml:3:5: extends[0]: `repo`:")
    assert not helper.exists()


def test_a_config_naming_a_remote_helper_starts_nothing(helper: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="is not a git URL of a transport"):
        resolve_git_entry({"repo": "th7://host/team", "rev": "v1", "path": "a.yaml"},
                          base_dir=tmp_path, origin=AT)
    assert not helper.exists()


def test_git_is_held_to_plain_transports_whatever_the_user_config_rewrites(
        helper: Path, tmp_path: Path) -> None:
    """An https URL the user's `url.insteadOf` turns into a remote helper's: git refuses it
    (GIT_ALLOW_PROTOCOL), the helper never starts."""
    with pytest.raises(ConfigError, match="transport 'th7' not allowed"):
        fetch_repo("https://rewritten.example/team", "v1", where=AT, cache=tmp_path / "c")
    assert not helper.exists()


def test_update_never_passes_a_url_starting_with_a_dash_to_git() -> None:
    """`user@host:path` may start with '-' (`-u...@x:y`): `git ls-remote` would read it as an
    option (--upload-pack runs a command)."""
    with pytest.raises(ConfigError, match="must be non-empty and not start with '-'"):
        list_tags("-uecho@x:$(touch${IFS}pwned)", where=AT)
