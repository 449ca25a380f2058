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
