"""A lock from a newer toolhost is refused with how to upgrade, and never written over in an
older format; a lock written on another OS (CRLF line endings) reads as the same lock."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

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


@pytest.mark.parametrize(("edit", "key", "where"), [
    (lambda d: d.update(attestations={}), "attestations", "attestations"),
    (lambda d: d["sources"]["pkg:toolhost"].update(signature="x"), "signature",
     "sources.pkg:toolhost"),
])
def test_a_key_this_format_has_not_is_refused_and_never_dropped(
        tmp_path: Path, edit: Callable[[dict[str, Any]], None], key: str, where: str) -> None:
    """A newer toolhost's key (or a hand edit) may pin what this one cannot check: refused,
    located at its line, and `toolhost lock` does not write the lock anew without it."""
    config = tmp_path / "toolhost.yaml"
    config.write_text(CONFIG)
    lock = lock_path(config)
    data = {"toolhost_lock": 1, "sources": {"pkg:toolhost": {"version": "0.1.0", "files": {}}},
            "plugins": {}}
    edit(data)
    lock.write_text(json.dumps(data, indent=2))
    before = lock.read_text()
    for attempt in (lambda: load_config(config), lambda: write_for(str(config)),
                    lambda: write_for(str(config), dry_run=True)):
        with pytest.raises(ConfigError) as caught:
            attempt()
        (problem,) = caught.value.problems
        assert f"'{key}' is not a key of a toolhost lock of format 1" in problem.message
        assert problem.key_path == where and problem.line > 1
        assert "upgrade toolhost" in problem.hint
    assert lock.read_text() == before


@pytest.mark.parametrize("version", ["true", "1.0", '"1"'])
def test_a_format_version_that_is_not_the_integer_1_is_refused(tmp_path: Path,
                                                               version: str) -> None:
    where = tmp_path / "toolhost.lock"
    where.write_text(f'{{"toolhost_lock": {version}, "sources": {{}}, "plugins": {{}}}}')
    with pytest.raises(ConfigError, match="not a toolhost lock of version 1"):
        read_lock(where)
