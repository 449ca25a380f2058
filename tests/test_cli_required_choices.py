"""``toolhost install`` with its arguments left out names the clients to choose from and the
config files here, as every other command does for its config: it only said "the following
arguments are required: client, config"."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost import cli


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as caught:
        cli.main(argv)
    assert caught.value.code == 2
    return capsys.readouterr().err


def test_install_alone_names_the_clients_and_how_to_get_a_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    err = _error(["install"], capsys)
    assert "required: client, config (client: one of claude-code, claude-desktop; there is " \
        "no config file here: `toolhost init` writes toolhost.yaml)" in err, err


def test_install_alone_beside_a_config_names_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "toolhost.yaml").write_text("toolhost: 1\n")
    err = _error(["install"], capsys)
    assert "(client: one of claude-code, claude-desktop; name the config file; the ones " \
        "here: toolhost.yaml)" in err, err
