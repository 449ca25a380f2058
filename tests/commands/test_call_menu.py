"""``toolhost call CONFIG`` with no tool named lists what it could call, and how."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from toolhost.commands._call_menu import SHOWN


def _call(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", "call", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd, check=False)


def _config(path: Path, tools: int) -> Path:
    lines = ["toolhost: 1", "servers:", "  calc:", "    tools:",
             "      add: {python: 'toolhost.demo:add'}",
             "      stats: {python: 'toolhost.demo:word_stats'}",
             "  shell:", "    tools:" if tools else "    tools: {}"]
    lines += [f"      echo{i}: {{command: [echo, '{{{{ text }}}}']}}" for i in range(tools)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_no_tool_named_lists_the_tools_with_their_arguments(tmp_path: Path) -> None:
    config = _config(tmp_path / "tools.yaml", 1)
    proc = _call(str(config), "--no-layers", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert lines[0] == f"toolhost call: name the tool to call: {config} has 3 tools"
    assert lines[1:4] == ["  calc.add a=NUMBER b=NUMBER",
                          "  calc.stats text=STRING [top=INTEGER]",
                          "  shell.echo0 text=STRING"]
    assert lines[4] == f"e.g.: toolhost call {config} calc.add a=... b=..."
    assert "Traceback" not in proc.stderr and len(lines) == 5


def test_a_long_list_is_cut_and_says_where_the_rest_is(tmp_path: Path) -> None:
    config = _config(tmp_path / "tools.yaml", 100)
    proc = _call(str(config), "--no-layers", cwd=tmp_path)
    assert proc.returncode == 2
    lines = proc.stderr.splitlines()
    assert "has 102 tools" in lines[0]
    assert len(lines) == 1 + SHOWN + 2
    assert lines[-2] == f"  (+{102 - SHOWN} more: toolhost tools {config} lists them all)"


def test_a_config_with_no_tools_says_how_to_add_one(tmp_path: Path) -> None:
    config = tmp_path / "empty.yaml"
    config.write_text("toolhost: 1\nservers: {}\n")
    proc = _call(str(config), "--no-layers", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"toolhost call: {config} declares no tools to call;")


def test_the_config_path_is_shown_inert(tmp_path: Path) -> None:
    """A file name holding an escape sequence is written back visible, never acted on."""
    config = _config(tmp_path / "a\x1b]0;owned\x07b.yaml", 0)
    proc = _call(str(config), "--no-layers", cwd=tmp_path)
    assert proc.returncode == 2
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "has 2 tools" in proc.stderr and "a\\x1b]0;owned\\x07b.yaml" in proc.stderr


def test_naming_a_tool_still_calls_it(tmp_path: Path) -> None:
    config = _config(tmp_path / "tools.yaml", 0)
    proc = _call(str(config), "calc.add", "a=2", "b=3", "--no-layers", cwd=tmp_path)
    assert (proc.returncode, proc.stdout.strip()) == (0, "5"), proc.stderr
