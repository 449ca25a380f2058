"""``toolhost init`` where its files are already: one plain sentence ("toolhost.yaml already
exists", not "already exist(s)") that says what to do short of overwriting: check the config
there, or write the example into a new directory; ``--force`` (which throws the files away)
comes last."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.cli import main


def test_an_existing_config_is_checked_not_overwritten(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "toolhost.yaml").write_text("toolhost: 1\nservers: {}\n")
    assert main(["init", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'toolhost.yaml'} already exists; nothing was written (" in err, err
    assert f"`toolhost validate {tmp_path / 'toolhost.yaml'}` checks the config there; " \
        "`toolhost init DIR` writes the example into a new directory; --force overwrites " \
        "them)" in err, err
    assert (tmp_path / "toolhost.yaml").read_text() == "toolhost: 1\nservers: {}\n"


def test_several_existing_files_are_named_in_one_sentence(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "toolhost_tools.py").write_text("")
    (tmp_path / "policy-tests.yaml").write_text("")
    assert main(["init", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'toolhost_tools.py'} and {tmp_path / 'policy-tests.yaml'} already " \
        "exist; nothing was written (`toolhost init DIR`" in err, err
    assert "validate" not in err  # no config of its own there to check
