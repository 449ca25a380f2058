"""A rev that is a short commit id works, and is warned about with the full id to pin."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from toolhost.config.gitrepos import repo_file
from toolhost.config.model import Origin

AT = Origin("team.yaml", 3, 5, "extends[0]")


def test_a_short_commit_id_is_warned_about_with_the_full_id(
        tmp_path: Path, make_repo: Callable[..., str],
        caplog: pytest.LogCaptureFixture) -> None:
    origin = tmp_path / "origin"
    sha = make_repo(origin, {"base.yaml": "one\n"})
    make_repo(origin, {"base.yaml": "two\n"})
    with caplog.at_level(logging.WARNING, logger="toolhost.config"):
        found = repo_file(origin.as_uri(), sha[:8], "base.yaml", where=AT,
                          cache=tmp_path / "cache")
        assert found.read_text() == "one\n"
        assert f"team.yaml:3:5: extends[0]: rev '{sha[:8]}' of" in caplog.text
        assert f"is a short commit id: pin the full id {sha}" in caplog.text
        caplog.clear()
        repo_file(origin.as_uri(), sha, "base.yaml", where=AT, cache=tmp_path / "cache")
    assert "short commit id" not in caplog.text  # the full id: nothing to say


def test_a_short_id_of_two_commits_says_so_not_that_there_is_none(tmp_path: Path) -> None:
    import os
    import subprocess

    from toolhost.errors import ConfigError

    origin = tmp_path / "origin"
    origin.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "GIT_AUTHOR_DATE": "1700000000 +0000", "GIT_COMMITTER_DATE": "1700000000 +0000"}

    def git(*args: str, stdin: str | None = None) -> str:
        return subprocess.run(["git", *args], cwd=origin, env=env, input=stdin, check=True,
                              capture_output=True, text=True).stdout.strip()

    git("init", "-q", "-b", "main", "--object-format=sha1")
    tree = git("mktree", stdin="")
    # these two messages give commits whose ids share their first 7 digits (2021f03)
    first, second = (git("commit-tree", tree, "-m", m) for m in ("c1779", "c12078"))
    assert first[:7] == second[:7] != first[:8]
    git("branch", "a", first)
    git("branch", "b", second)
    with pytest.raises(ConfigError) as info:
        repo_file(origin.as_uri(), first[:7], "base.yaml", where=AT, cache=tmp_path / "cache")
    assert str(info.value) == (
        f"team.yaml:3:5: extends[0]: {origin.as_uri()}: rev '{first[:7]}' is the prefix of 2 "
        f"commits ({', '.join(sorted(c[:12] for c in (first, second)))}) (pin the full "
        "40-character id of the commit you reviewed)")
