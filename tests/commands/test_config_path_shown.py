"""``lock --check`` and ``update`` show the config path the way every other command does:
a line break, a carriage return or an escape sequence in a file name is written escaped (no
forged "file:line:" line), and a missing or empty config is said to be missing, never
advised to be locked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TOOLHOST = str(Path(sys.executable).parent / "toolhost")
NAMES = {
    "newline": "a\nfake.yaml:1:1: ok.yaml",
    "carriage return": "a\rfake.yaml",
    "escape": "a\x1b[2Kb.yaml",
    "bell and tab": "a\x07\tb.yaml",
    "line separator": "a\u2028b.yaml",
}
COMMANDS = {"lock --check": ("lock", "--check"), "update --dry-run": ("update", "--dry-run"),
            "lock --dry-run": ("lock", "--dry-run")}


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"}
    env.update(TOOLHOST_CACHE=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "xdg"))
    return subprocess.run([TOOLHOST, *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("name", sorted(NAMES))
def test_a_control_character_in_the_config_name_is_shown_escaped(
        tmp_path: Path, name: str, command: str) -> None:
    path = NAMES[name]
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text("toolhost: 1\nservers: {}\n")
    done = _run(tmp_path, *COMMANDS[command], path)
    out = done.stdout + done.stderr
    assert "Traceback" not in out and "internal error" not in out, out
    for line in out.splitlines():
        assert not line.startswith("fake.yaml"), out
    for char in "\r\x1b\x07\t\u2028":
        assert char not in out, repr(out)


@pytest.mark.parametrize("config,expected", [("", "no config file named"),
                                             ("nonexist.yaml", "no such file"),
                                             ("sub/nonexist.toml", "no such file")])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_missing_config_is_said_to_be_missing(tmp_path: Path, command: str, config: str,
                                                expected: str) -> None:
    done = _run(tmp_path, *COMMANDS[command], config)
    assert done.returncode == 1, done
    assert expected in done.stderr, done.stderr
    assert "create it with" not in done.stderr, done.stderr
