"""A local team repository with uncommitted edits: the project uses the pinned commit, so
`toolhost lock` says the edits are not what it pins (they were ignored without a word)."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Callable
from pathlib import Path

from toolhost.cli import main

BASE = "servers:\n  team:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n"


def _lock(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["lock", *args])
    return code, out.getvalue(), err.getvalue()


def test_uncommitted_changes_of_a_local_team_repo_are_a_note_at_lock(
        tmp_path: Path, make_repo: Callable[..., str]) -> None:
    origin = tmp_path / "team-config"
    sha = make_repo(origin, {"base.yaml": BASE, "README.md": "team\n"}, tag="v1.0.0")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n"
                      "  - {repo: ../team-config, rev: v1.0.0, path: base.yaml}\n")
    code, _, err = _lock(str(config))
    assert code == 0 and "note" not in err, err  # a clean repository: nothing to say

    (origin / "README.md").write_text("edited\n")
    code, out, err = _lock(str(config), "--check")
    assert code == 0 and "up to date" in out, (out, err)
    assert "uncommitted changes to 1 file(s) this config does not use" in err, err

    (origin / "base.yaml").write_text(BASE.replace("add", "sub"))
    code, out, err = _lock(str(config))
    assert code == 0 and "up to date" in out, (out, err)
    (note,) = [line for line in err.splitlines() if "note:" in line]
    assert "repo:../team-config@v1.0.0:" in note and str(origin) in note, note
    assert "uncommitted changes to base.yaml (used by this config) and 1 other file" in note
    assert f"the config uses commit {sha[:12]} (v1.0.0), not the working tree" in note


def test_validate_says_it_too(tmp_path: Path, make_repo: Callable[..., str]) -> None:
    origin = tmp_path / "team-config"
    make_repo(origin, {"base.yaml": BASE}, tag="v1.0.0")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text("toolhost: 1\nextends:\n"
                      "  - {repo: ../team-config, rev: v1.0.0, path: base.yaml}\n")
    (origin / "base.yaml").write_text(BASE.replace("add", "sub"))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["validate", str(config)])
    assert code == 0 and "ok (1 server, 1 tool)" in out.getvalue(), err.getvalue()
    (note,) = [line for line in err.getvalue().splitlines() if "uncommitted" in line]
    assert note.startswith(f"{config}: note: repo:{origin.as_uri()}@v1.0.0: {origin} has "
                           "uncommitted changes to base.yaml (used by this config)"), note
