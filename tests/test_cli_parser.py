"""The command line's parser: worded and wrapped as argparse's own formatter would (without
importing shutil for the terminal's width)."""

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


def commands(parser: argparse.ArgumentParser) -> dict[str, Any]:
    action: Any = parser._subparsers._group_actions[0]  # type: ignore[union-attr]
    return dict(action.choices)
