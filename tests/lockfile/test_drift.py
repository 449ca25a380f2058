"""What a refused pin says is what happened: a tag that moved is called moved, a lock whose
commit the repository does not have (copied from another repository's entry, edited) or a
commit id the lock changed is not called a moved tag."""

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


@pytest.mark.parametrize("case", ["tag-moved", "commit-of-another-repo", "commit-rev-edited"])
def test_a_refused_pin_says_what_is_true(tmp_path: Path, make_repo: Callable[..., str],
                                         monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    team = tmp_path / "team"
    reviewed = make_repo(team, {"base.yaml": BASE}, tag="v1")
    other = make_repo(tmp_path / "other", {"base.yaml": BASE + "# another\n"}, tag="v1")
    rev = reviewed if case == "commit-rev-edited" else "v1"
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: ../team, rev: \"{rev}\", "
                      "path: base.yaml}\n")
    write_for(str(config))
    lock = lock_path(config)
    if case == "tag-moved":  # seen by a machine with an empty cache
        moved = make_repo(team, {"base.yaml": BASE.replace("add", "drop")})
        git(team, "tag", "-f", "v1")
        monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "new-machine-cache"))
    else:  # the lock's commit replaced by another repository's
        data = json.loads(lock.read_text())
        (entry,) = data["sources"].values()
        entry["commit"] = other
        lock.write_text(json.dumps(data))
    with pytest.raises(ConfigError) as info:
        load_config(config)
    text = str(info.value)
    assert "changed since toolhost.lock" in text, text
    if case == "tag-moved":
        assert f"resolves to commit {moved[:12]}" in text and "(the tag moved)" in text, text
        assert "-      add:" in text, text  # the diff
    elif case == "commit-of-another-repo":
        assert f"the lock has {other[:12]}, which the repository does not have" in text, text
        assert "moved" not in text and "git log -p toolhost.lock" in text, text
    else:
        assert f"rev {reviewed} is a commit id" in text and "the lock was edited" in text, text
        assert "moved" not in text, text


def test_the_review_fetch_waits_for_another_toolhost_on_the_same_checkout(
        tmp_path: Path, make_repo: Callable[..., str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Four `toolhost update` at once: the fetch of the locked commit (for the diff) ran
    while another process worked in the checkout, and git's shallow.lock refused it: the
    diff a reviewer needs was "cannot be fetched to compare". A git on PATH that fails every
    fetch into a cached checkout nobody holds the cache's lock on shows it deterministically."""
    import os
    import shutil

    team = tmp_path / "team"
    make_repo(team, {"base.yaml": BASE}, tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n  - {repo: ../team, rev: v1, path: base.yaml}\n")
    write_for(str(config))
    make_repo(team, {"base.yaml": BASE.replace("add", "drop")})
    git(team, "tag", "-f", "v1")
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "git"
    fake.write_text(
        "#!/bin/sh\nlock=\"$(dirname \"$PWD\")/$(basename \"$PWD\").lock\"\n"
        "case \" $* \" in *\" fetch \"*)\n"
        "  if [ -e \"$lock\" ] && flock -n \"$lock\" true; then\n"
        "    echo \"fatal: Unable to create '$PWD/.git/shallow.lock': File exists.\" >&2\n"
        "    exit 128\n  fi;;\nesac\n"
        f"exec {shutil.which('git')} \"$@\"\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(ConfigError) as info:
        load_config(config)
    text = str(info.value)
    assert "(the tag moved)" in text and "-      add:" in text, text
    assert "cannot be fetched" not in text, text
