"""The ``toolhost`` entry point: help that teaches, and output into a closed pipe."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolhost.cli import COMMANDS, main


def test_help_lists_every_command() -> None:
    proc = subprocess.run([sys.executable, "-m", "toolhost", "--help"], capture_output=True,
                          text=True, timeout=60, check=True)
    for name in COMMANDS:
        assert name in proc.stdout
    assert "Start here:" in proc.stdout


def test_no_command_prints_help_and_exits_2() -> None:
    assert main([]) == 2


def test_a_reader_that_leaves_early_gets_no_traceback(tmp_path: Path) -> None:
    tools = "".join(f"      t{i}:\n        command: [echo, '{{{{ x }}}}']\n" for i in range(2000))
    config = tmp_path / "many.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  s:\n    tools:\n{tools}")
    proc = subprocess.Popen([sys.executable, "-m", "toolhost", "tools", str(config)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith("s ")
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in err, err
