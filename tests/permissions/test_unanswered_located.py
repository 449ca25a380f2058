"""The start-up note of an ask nobody answers is located where the default is decided."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.permissions.unanswered import unanswered_note

from ..plugins.conftest import _make_repo

TOOL = "servers:\n  own:\n    tools:\n      add: {python: 'toolhost.demo:add'}\n"


@pytest.mark.parametrize("team_sets_default", [False, True])
def test_the_note_names_the_file_that_decides_the_default(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, team_sets_default: bool) -> None:
    monkeypatch.setenv("TOOLHOST_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    team = tmp_path / "team"
    default = "  default: ask\n" if team_sets_default else ""
    _make_repo(team, {"base.yaml": f"permissions:\n{default}  allow: [Read]\n"}, tag="v1")
    config = tmp_path / "proj" / "toolhost.yaml"
    config.parent.mkdir()
    config.write_text(f"toolhost: 1\nextends:\n  - {{repo: {team.as_uri()}, rev: v1, "
                      f"path: base.yaml}}\n{TOOL}")
    note = unanswered_note(load_config(config, layers=False), "serve", nobody=True)
    assert note is not None
    if team_sets_default:  # the team's file, named by repository and rev, not a cache path
        assert (note.line, note.key_path) == (2, "permissions.default"), note
        assert note.hint.endswith(f"; base.yaml of {team.as_uri()} at v1"), note.hint
    else:  # nobody wrote the default: the project's file, not the team's `permissions:`
        assert (note.file, note.line, note.key_path) == (str(config), 0, ""), note
