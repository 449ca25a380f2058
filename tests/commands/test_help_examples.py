"""Every command's and subcommand's ``--help`` teaches by example: an "Examples:" block
whose lines run toolhost with that very command (``permissions list`` and ``lint`` had
none)."""

from __future__ import annotations

import argparse

import pytest

from toolhost.cli import COMMANDS, build_parser


def _parsers() -> dict[str, argparse.ArgumentParser]:
    """Each command line's parser by its words (``permissions list``)."""
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(parser: argparse.ArgumentParser, words: str) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if words:
            found[words] = parser
        for action in subs:
            for name, child in action.choices.items():
                walk(child, f"{words} {name}".strip())

    walk(build_parser(), "")
    return found


PARSERS = _parsers()


def test_every_command_is_walked() -> None:
    assert set(COMMANDS) <= set(PARSERS)
    assert {"permissions list", "permissions lint", "permissions check"} <= set(PARSERS)


@pytest.mark.parametrize("words", sorted(PARSERS))
def test_each_help_shows_examples_of_its_own_command(words: str) -> None:
    text = PARSERS[words].format_help()
    assert "Examples:" in text, text
    examples = text.split("Examples:", 1)[1]
    assert f"toolhost {words} " in examples, examples
