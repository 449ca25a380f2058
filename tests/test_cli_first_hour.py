"""Mistakes of a first hour, each one located line that says how to fix it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main

CASES = {
    # a format version written as other tools' files write it
    "version.yaml": ("version: 1\nservers: {}\n",
                     "version.yaml:1:1: version: missing format version ('version' is not a "
                     "key of toolhost's format) (write 'toolhost: 1' instead of 'version: ...')"),
    "format.toml": ("format = 1\n", "format.toml:1:1: format: missing format version"),
    # TOML written in a .yaml file: YAML reads it as one string, or as a list
    "keys.yaml": ('toolhost = 1\n[servers.s.tools.t]\npython = "toolhost.demo:add"\n',
                  "this file is written as TOML (key = value, [tables]): name it .toml"),
    "table.yaml": ("[servers.s]\n", "this file is written as TOML"),
    # a directory named instead of the config file in it
    # written as a path from here, the configs first (a policy test, a CI workflow are
    # none), toolhost.* first among them
    "proj": (None, "proj: is a directory, not a config file (name the config file in it: "
             "proj/toolhost.yaml, proj/b.yaml, proj/a-workflow.yml, proj/policy-tests.yaml)"),
    "empty": (None, "empty: is a directory, not a config file (name the config file in it "
              "(`toolhost init` writes toolhost.yaml))"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_first_hour_mistake_is_one_line_saying_how_to_fix_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        name: str) -> None:
    text, said = CASES[name]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    if text is None:
        (tmp_path / name).mkdir()
        if name == "proj":
            (tmp_path / name / "toolhost.yaml").write_text("toolhost: 1\n")
            (tmp_path / name / "b.yaml").write_text("# another\ntoolhost: 1\n")
            (tmp_path / name / "a-workflow.yml").write_text("on: push\n")
            (tmp_path / name / "policy-tests.yaml").write_text("config: x\ncases: []\n")
            (tmp_path / name / "notes.txt").write_text("toolhost: 1\n")
    else:
        (tmp_path / name).write_text(text)
    assert main(["validate", name]) == 1
    err = capsys.readouterr().err
    assert said in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err


MISSING = {
    # a config named in an empty directory: how to get one
    ("", "toolhost.yaml"): "toolhost.yaml: no such file (there is no config file in this "
                           "directory: `toolhost init .` writes one)",
    # `toolhost --help`'s or the README's example, run outside toolhost's clone
    ("", "examples/configs/demo.yaml"): "examples/configs/demo.yaml: no such file (there is no "
    "directory examples/configs in {tmp} (examples/ is in toolhost's repository: run such "
    "commands in its clone))",
    ("", "sub/x.yaml"): "sub/x.yaml: no such file (there is no directory sub in {tmp})",
    # a name that is not close to the configs there: they are listed (not .mcp.json)
    ("team.yaml b.toml .mcp.json", "tools.yaml"): "tools.yaml: no such file (the config "
    "files in this directory: b.toml, team.yaml)",
    # a close name: the old hint
    ("toolhost.yml", "toolhost.yaml"): "toolhost.yaml: no such file (did you mean "
                                       "toolhost.yml?)",
    # the name without its suffix: the file meant (it was "use .yaml, .yml or .toml")
    ("toolhost.yaml", "toolhost"): "toolhost: unknown config format '' (did you mean "
                                   "toolhost.yaml?)",
    ("team.toml", "team"): "team: unknown config format '' (did you mean team.toml?)",
    ("team.toml", "other"): "other: unknown config format '' (use .yaml, .yml or .toml)",
}


@pytest.mark.parametrize(("there", "named"), list(MISSING))
def test_a_missing_config_says_what_is_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        there: str, named: str) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in there.split():
        (tmp_path / name).write_text("toolhost: 1\n")
    assert main(["validate", named]) == 1
    err = capsys.readouterr().err
    assert err == MISSING[there, named].format(tmp=tmp_path) + "\n"


def test_help_starts_where_a_new_user_is(capsys: pytest.CaptureFixture[str]) -> None:
    """`toolhost --help`'s first steps work in any directory (init, then its config), not
    only in toolhost's clone."""
    with pytest.raises(SystemExit):
        main(["--help"])
    start = capsys.readouterr().out.split("Start here")[1].split("Docs:")[0]
    commands = [line.strip().split("  ")[0] for line in start.splitlines()
                if line.startswith("  toolhost")]
    assert commands[0] == "toolhost init"
    assert all("toolhost.yaml" in c for c in commands[1:]) and len(commands) == 4
