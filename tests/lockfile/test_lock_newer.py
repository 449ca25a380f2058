"""A lock from a newer toolhost is refused with how to upgrade, and never written over in an
older format; a lock written on another OS (CRLF line endings) reads as the same lock."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.commands.lock import write_for
from toolhost.config import load_config
from toolhost.errors import ConfigError
from toolhost.lockfile import lock_path, read_lock

CONFIG = "toolhost: 1\nservers:\n  s:\n    tools:\n      t: {python: 'toolhost.demo:add'}\n"
NEWER = '{"toolhost_lock": 2, "sources": {}, "plugins": {}, "attestations": {}}\n'


def test_a_newer_lock_is_refused_with_how_to_upgrade_and_kept(tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG)
    lock_path(config).write_text(NEWER)
    for attempt in (lambda: load_config(config), lambda: write_for(str(config)),
                    lambda: write_for(str(config), dry_run=True)):
        with pytest.raises(ConfigError) as caught:
            attempt()
        (problem,) = caught.value.problems
        assert problem.file == str(lock_path(config)) and problem.key_path == "toolhost_lock"
        assert "written by a newer toolhost (lock format 2;" in problem.message
        assert "upgrade toolhost" in problem.hint
    assert lock_path(config).read_text() == NEWER  # not turned back into format 1


def test_a_lock_with_crlf_line_endings_is_the_same_lock(tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG)
    write_for(str(config))
    where = lock_path(config)
    written = read_lock(where)
    where.write_bytes(where.read_bytes().replace(b"\n", b"\r\n"))
    assert read_lock(where) == written
    assert write_for(str(config), dry_run=True) == []
