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


def test_a_lock_read_without_its_model_answers_as_the_model_does(tmp_path: Path) -> None:
    """``toolhost.lockfile.read_lock`` answers "no lock" itself only when nothing at all is
    there; a dangling link, a file on the way and a name too long read as the model says."""
    from toolhost.lockfile import model, where

    (tmp_path / "file").write_text("x", encoding="utf-8")
    (tmp_path / "dangling.lock").symlink_to(tmp_path / "gone")
    for path in (tmp_path / "none.lock", tmp_path / "no" / "dir.lock",
                 tmp_path / "file" / "under.lock", tmp_path / ("n" * 300 + ".lock"),
                 tmp_path / "dangling.lock"):
        answers = []
        for read in (where.read_lock, model.read_lock):
            try:
                answers.append(("lock", read(path)))
            except ConfigError as exc:
                answers.append(("error", str(exc)))
        assert answers[0] == answers[1], path.name[:20]
    with pytest.raises(ConfigError, match="does not exist"):
        where.read_lock(tmp_path / "dangling.lock")
