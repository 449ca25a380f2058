"""``toolhost run CONFIG --script SCENARIO``: a malformed scenario file is a usage error, as
with ``python -m toolhost.scripted``: exit 2, one line naming file, line and key path, nothing
started (no CLI, no model)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOLHOST = Path(sys.executable).parent / "toolhost"


@pytest.mark.parametrize(("text", "where"), [
    ("turns: [\n", "s.yaml:2:1: turns[0]: invalid YAML"),
    ("turns: []\n", "s.yaml:1: turns: must be a non-empty list"),
    ("", "s.yaml:1: a scenario must be a mapping, got nothing (an empty file)"),
    ("- a\n", "s.yaml:1: a scenario must be a mapping, got a list"),
    ("turns:\n  - tool_calls:\n      - {tool: mcp__e2e__look, input: \"str\"}\n",
     "s.yaml:3: turns[0].tool_calls[0].input: must be a mapping of arguments"),
    ("turns:\n  - text: a\n    stop: 1\n", "s.yaml:3: turns[0].stop: unknown key"),
    ("turns:\n  - 5\n", "s.yaml:2: turns[0]: a turn must be a mapping, got a number"),
])
def test_a_malformed_scenario_is_refused_with_exit_2_before_anything_starts(
        tmp_path: Path, text: str, where: str) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n  default: deny\n")
    script = tmp_path / "s.yaml"
    script.write_text(text)
    started = tmp_path / "cli-started"
    fake = tmp_path / "fake-cli"  # would leave a trace if it were ever started
    fake.write_text(f"#!/bin/sh\ntouch {started}\n")
    fake.chmod(0o755)
    done = subprocess.run([str(TOOLHOST), "run", str(config), "--script", str(script),
                           "-p", "go", "--cli", str(fake)], capture_output=True, text=True,
                          timeout=60, check=False, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"toolhost: error: {tmp_path}/{where}"), \
        done.stderr
    assert not started.exists() and done.stdout == ""


@pytest.mark.parametrize("flag", ["--script", "--cwd"])
def test_an_empty_path_is_refused_before_anything_starts(tmp_path: Path, flag: str) -> None:
    """`--script "$UNSET"` played the real model (the API key, the network) as if no
    --script were given; `--cwd ""` was dropped without a word."""
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n  default: deny\n")
    started = tmp_path / "cli-started"
    fake = tmp_path / "fake-cli"
    fake.write_text(f"#!/bin/sh\ntouch {started}\n")
    fake.chmod(0o755)
    done = subprocess.run([str(TOOLHOST), "run", str(config), flag, "", "-p", "go", "--cli",
                           str(fake)], capture_output=True, text=True, timeout=60, check=False,
                          cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"toolhost run: {flag}: an empty path; nothing was started\n"
    assert not started.exists() and done.stdout == ""
