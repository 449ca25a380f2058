"""Every command's --help teaches: it has examples, and each example is written as it runs.

A shell line continuation (``\\`` at the end of a line) in a help text's source joins the two
lines into one with a run of spaces in the middle (``team.yaml       --transport``), unless
the backslash is escaped; each command's help is read as a person reads it.
"""

from __future__ import annotations

import argparse
import re

import pytest

from toolhost import cli

COMMANDS = sorted(cli.COMMANDS)
_JOINED = re.compile(r"\S {3,}--[a-z]")


def _help(command: str) -> str:
    parser = cli.build_parser(command)
    (action,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return str(action.choices[command].format_help())


@pytest.mark.parametrize("command", COMMANDS)
def test_each_help_has_runnable_examples(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    text = _help(command)
    examples = [line for line in text.splitlines()
                if line.lstrip().startswith(f"toolhost {command}")]
    assert examples, f"toolhost {command} --help shows no example"
    joined = [line for line in text.splitlines() if _JOINED.search(line)
              and line.lstrip().startswith(("toolhost", "TOOLHOST", "claude"))]
    assert not joined, joined


@pytest.mark.parametrize("command", COMMANDS)
def test_each_help_ends_saying_where_to_read_more(command: str) -> None:
    from pathlib import Path

    text = _help(command)
    page = cli.DOCS[command]
    assert text.rstrip().endswith(f"More: {page} (in toolhost's repository); `toolhost --help` "
                                  "lists every command.")
    assert (Path(__file__).resolve().parents[1] / page).is_file()
