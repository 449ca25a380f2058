"""``permissions list`` and ``check`` across layers (user, extends, project, local): each rule
with its layer and file:line, and (round 13) where the default and ask_mode in effect were set:
a later layer's value wins, and the output says which file it came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolhost.cli import main


@pytest.fixture
def layered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "xdg" / "toolhost").mkdir(parents=True)
    (tmp_path / "team").mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "xdg" / "toolhost" / "config.yaml").write_text(
        "toolhost: 1\npermissions:\n  ask_mode: deny\n  default: deny\n"
        "  allow: ['Bash(git status)']\n")
    (tmp_path / "team" / "base.yaml").write_text(
        "toolhost: 1\npermissions:\n  ask_mode: allow\n  deny: ['Bash(git push:*)']\n")
    (tmp_path / "toolhost.yaml").write_text(
        "toolhost: 1\nextends: [team/base.yaml]\nservers: {}\npermissions:\n"
        "  default: allow\n  ask: ['Bash(npm publish:*)']\n")
    (tmp_path / "toolhost.local.yaml").write_text(
        "toolhost: 1\npermissions:\n  ask_mode: prompt\n  allow: ['Bash(git push origin main)']\n")
    return tmp_path / "toolhost.yaml"


def test_list_names_each_rule_and_setting_where_written(
        layered: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["permissions", "list", "toolhost.yaml"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("default: allow (toolhost.yaml:5:3)   "
                               "ask_mode: prompt (toolhost.local.yaml:3:3)")
    rows = [" ".join(line.split()) for line in lines[1:5]]
    assert rows[0] == "1 deny Bash(git push:*) [extends] team/base.yaml:4:10"
    assert rows[1] == "2 ask Bash(npm publish:*) [project] toolhost.yaml:6:9"
    assert rows[2].startswith("3 allow Bash(git status) [user] ") and rows[2].endswith(
        "xdg/toolhost/config.yaml:5:11")
    assert rows[3] == "4 allow Bash(git push origin main) [local] toolhost.local.yaml:4:11"
    assert main(["permissions", "list", "toolhost.yaml", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["default"], out["default_origin"]) == ("allow", "toolhost.yaml:5:3")
    assert (out["ask_mode"], out["ask_mode_origin"]) == ("prompt", "toolhost.local.yaml:3:3")


@pytest.mark.parametrize("command,first", [
    ("git push origin main", "deny: Bash(git push:*)  (team/base.yaml:4:10, layer extends)"),
    ("npm publish", "ask: Bash(npm publish:*)  (toolhost.yaml:6:9, layer project)"),
    ("ls", "allow: no rule matches Bash; the default is allow (toolhost.yaml:5:3)"),
])
def test_check_names_the_rule_or_the_default_where_written(
        layered: Path, capsys: pytest.CaptureFixture[str], command: str, first: str) -> None:
    assert main(["permissions", "check", "toolhost.yaml", "Bash", "--input",
                 json.dumps({"command": command})]) == 0
    assert capsys.readouterr().out.splitlines()[0] == first


def test_a_default_no_layer_sets_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "none"))
    (tmp_path / "t.yaml").write_text("toolhost: 1\nservers: {}\n")
    assert main(["permissions", "check", str(tmp_path / "t.yaml"), "Read"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == (
        "ask: no rule matches Read; the default is ask (not set in any layer)")
    assert main(["permissions", "list", str(tmp_path / "t.yaml"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["default_origin"] is None
