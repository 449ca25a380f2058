"""`toolhost lock` refuses what `toolhost validate` refuses (one shared check), and writes
nothing for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.errors import ConfigError
from toolhost.lockfile import lock_path

HEAD = "toolhost: 1\nservers:\n  s:\n    tools:\n"
CASES = {
    "minimum above maximum": (
        HEAD + "      t:\n        command: [echo, '{{ n }}']\n"
        "        params:\n          n: {type: integer, minimum: 10, maximum: 1}\n",
        "minimum 10 is greater than maximum 1"),
    "template that does not parse": (
        HEAD + "      t: {command: [echo, '{{ n ']}\n", "template does not parse"),
    "missing cwd": (
        HEAD + "      t: {command: {argv: [ls], cwd: nothere}}\n", "nothere"),
    "python tool that does not import": (
        HEAD + "      t: {python: 'no_such_module_t5:f'}\n", "no_such_module_t5"),
    "rule naming no tool": (
        HEAD + "      t: {python: 'toolhost.demo:add'}\n"
        "permissions:\n  deny: [mcp__s__tt]\n", "mcp__s__tt"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_lock_refuses_a_config_validate_refuses(tmp_path: Path, case: str) -> None:
    text, said = CASES[case]
    config = tmp_path / "toolhost.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError) as caught:
        write_for(str(config))
    assert any(said in p.message for p in caught.value.problems), caught.value.problems
    assert all(p.file == str(config) and p.line > 0 for p in caught.value.problems)
    assert not lock_path(str(config)).exists()


def test_lock_still_writes_a_valid_config(tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(HEAD + "      t: {python: 'toolhost.demo:add'}\n")
    write_for(str(config))
    assert lock_path(str(config)).exists()
