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
    "proj": (None, "proj: is a directory, not a config file (name the config file in it: "
             "toolhost.yaml)"),
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
    else:
        (tmp_path / name).write_text(text)
    assert main(["validate", name]) == 1
    err = capsys.readouterr().err
    assert said in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
