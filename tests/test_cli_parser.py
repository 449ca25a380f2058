"""The command line's parser: built for the chosen command alone, and worded and wrapped as
argparse's own formatter would (without importing shutil for the terminal's width)."""

from __future__ import annotations

import argparse
import shutil
from typing import Any

import pytest

from toolhost import cli


@pytest.mark.parametrize("columns", [None, "60", "132", "0", "wide"])
def test_the_width_is_shutils(columns: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cli._columns() == shutil.get_terminal_size().columns


@pytest.mark.parametrize("only", [None, "serve", "validate", "permissions"])
@pytest.mark.parametrize("columns", ["50", "100"])
def test_help_reads_as_with_argparses_formatter(only: str | None, columns: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    ours = cli.build_parser(only)
    monkeypatch.setattr(cli, "_Formatter", argparse.RawDescriptionHelpFormatter)
    stock = cli.build_parser(only)
    assert ours.format_help() == stock.format_help()
    if only:
        assert commands(ours)[only].format_help() == commands(stock)[only].format_help()


def test_a_run_of_one_command_parses_as_the_whole_command_line() -> None:
    argv = ["-v", "serve", "team.yaml", "--all", "--max-depth", "9"]
    one, whole = vars(cli.build_parser("serve").parse_args(argv)), \
        vars(cli.build_parser().parse_args(argv))
    assert one == whole and one["max_depth"] == 9
    assert list(commands(cli.build_parser("serve"))) == ["serve"]


@pytest.mark.parametrize(("argv", "only"), [
    (["serve"], "serve"), (["serve", "x.yaml", "--port", "many"], "serve"),
    (["--debug", "validate", "x.yaml", "--bogus"], "validate")])
def test_a_run_of_one_command_refuses_as_the_whole_command_line(
        argv: list[str], only: str, capsys: pytest.CaptureFixture[str]) -> None:
    said = []
    for chosen in (only, None):
        with pytest.raises(SystemExit) as exit_:
            cli.build_parser(chosen).parse_args(argv)
        said.append((exit_.value.code, capsys.readouterr().err))
    assert said[0] == said[1] and said[0][0] == 2
    assert cli._chosen(argv) == only


def commands(parser: argparse.ArgumentParser) -> dict[str, Any]:
    action: Any = parser._subparsers._group_actions[0]  # type: ignore[union-attr]
    return dict(action.choices)
