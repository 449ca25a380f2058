"""The hooks of the machine's managed settings, which toolhost's ``disableAllHooks`` cannot
stop, are named before the CLI starts (toolhost.runner.managed_hooks)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from toolhost.runner.managed_hooks import managed_dir, managed_hooks, warnings

HOOK = [{"matcher": "*", "hooks": [{"type": "command", "command": "true"}]}]


@pytest.mark.parametrize("settings,named", [
    ({"hooks": {"PreToolUse": HOOK}}, "PreToolUse hooks"),
    ({"hooks": {"SessionStart": HOOK, "Stop": HOOK}}, "SessionStart hooks, Stop hooks"),
    ({"statusLine": {"type": "command", "command": "true"}}, "a statusLine command"),
    ({"hooks": {"PreToolUse": HOOK}, "disableAllHooks": False}, "PreToolUse hooks"),
    ({"hooks": ["odd"]}, "hooks"),
    ("[1, 2]", "is not a JSON object"),
    ("{not json", "is not a JSON object"),
    (b"\xff\xfe", "cannot be read here"),
])
def test_a_managed_file_whose_hooks_run_is_named(tmp_path: Path, settings: Any,
                                                 named: str) -> None:
    path = tmp_path / "managed-settings.json"
    if isinstance(settings, bytes):
        path.write_bytes(settings)
    else:
        path.write_text(settings if isinstance(settings, str) else json.dumps(settings))
    ((where, what),) = managed_hooks(str(tmp_path))
    assert where == str(path) and what.startswith(named)
    (line,) = warnings(str(tmp_path))
    assert line.startswith(f"toolhost: warning: {path}: ") and "still run" in line


@pytest.mark.parametrize("settings", [
    {}, {"hooks": {}}, {"hooks": {"PreToolUse": []}}, {"permissions": {"deny": ["Bash"]}},
    {"hooks": {"PreToolUse": HOOK}, "disableAllHooks": True},  # runs none of them
])
def test_a_managed_file_that_runs_no_hook_is_not_named(tmp_path: Path,
                                                       settings: dict[str, Any]) -> None:
    (tmp_path / "managed-settings.json").write_text(json.dumps(settings))
    assert managed_hooks(str(tmp_path)) == [] and warnings(str(tmp_path)) == []


def test_drop_in_files_are_named_each(tmp_path: Path) -> None:
    drop_in = tmp_path / "managed-settings.d"
    drop_in.mkdir()
    (drop_in / "10-a.json").write_text(json.dumps({"hooks": {"Stop": HOOK}}))
    (drop_in / "20-b.json").write_text(json.dumps({"permissions": {}}))
    (drop_in / "30-c.txt").write_text(json.dumps({"hooks": {"Stop": HOOK}}))  # not read
    assert managed_hooks(str(tmp_path)) == [(str(drop_in / "10-a.json"), "Stop hooks")]


def test_no_managed_settings_no_warning(tmp_path: Path) -> None:
    assert managed_hooks(str(tmp_path / "absent")) == []
    assert managed_dir("linux") == "/etc/claude-code" and managed_dir("win32") is None


def test_a_file_name_cannot_act_on_the_terminal(tmp_path: Path) -> None:
    drop_in = tmp_path / "managed-settings.d"
    drop_in.mkdir()
    (drop_in / "x\x1b[2J.json").write_text(json.dumps({"hooks": {"Stop": HOOK}}))
    (line,) = warnings(str(tmp_path))
    assert "\x1b" not in line and "\\x1b" in line


def test_a_fifo_or_a_directory_is_named_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "managed-settings.json")  # opening it for reading would block
    drop_in = tmp_path / "managed-settings.d"
    (drop_in / "odd.json").mkdir(parents=True)
    found = dict(managed_hooks(str(tmp_path)))
    assert set(found) == {str(tmp_path / "managed-settings.json"), str(drop_in / "odd.json")}
    assert all("not a regular file" in what for what in found.values())
