"""``toolhost run CONFIG ... -- CLI_ARGS``: arguments that would let the CLI decide permissions
without toolhost are refused before anything starts (one line, exit 2), wherever ``--``
stands among the options."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

TOOLHOST = Path(sys.executable).parent / "toolhost"


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "toolhost.yaml"
    path.write_text("toolhost: 1\npermissions:\n  default: deny\n")
    return path


@pytest.mark.parametrize("passed", [
    ["--allowedTools", "Bash"], ["--dangerously-skip-permissions"],
    ["--permission-mode=bypassPermissions"], ["--verbose", "--permission-mode", "acceptEdits"],
    ["--settings", "{}"], ["--permission-prompt-tool", "mcp__x__y"],
])
@pytest.mark.parametrize("where", ["after the config", "after the options"])
def test_a_weakening_cli_argument_is_refused_before_anything_starts(
        config: Path, tmp_path: Path, passed: list[str], where: str) -> None:
    cli = tmp_path / "cli-started"
    fake = tmp_path / "fake-cli"  # would leave a trace if it were ever started
    fake.write_text(f"#!/bin/sh\ntouch {cli}\n")
    fake.chmod(0o755)
    options = ["-p", "go", "--cli", str(fake)]
    argv = [*options, str(config)] if where == "after the config" \
        else [str(config), *options]
    done = subprocess.run([str(TOOLHOST), "run", *argv, "--", *passed], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith("toolhost run: argument -- CLI_ARGS: --") and "not allowed" in line
    assert not cli.exists()
