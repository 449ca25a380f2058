"""The ``toolhost`` entry point: help that teaches, and output into a closed pipe."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

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


TOOLHOST = str(Path(sys.executable).parent / "toolhost")


def _broken_validate(tmp_path: Path) -> dict[str, str]:
    """An environment whose `validate` raises an exception nobody planned for: a
    sitecustomize makes the real console script meet a bug."""
    (tmp_path / "sitecustomize.py").write_text(
        "import toolhost.commands.validate as v\n"
        "def main(args):\n"
        "    raise RuntimeError('boom ' + 'x' * 5000)\n"
        "v.main = main\n")
    import os

    env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"}
    return {**env, "PYTHONPATH": str(tmp_path)}


def test_an_unexpected_error_is_one_line_and_exit_2(tmp_path: Path) -> None:
    proc = subprocess.run([TOOLHOST, "validate", "x.yaml"], capture_output=True, text=True,
                          timeout=60, env=_broken_validate(tmp_path))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("toolhost: internal error: RuntimeError: boom xxx")
    assert "more characters" in lines[0] and lines[0].endswith(
        "rerun with --debug (or TOOLHOST_DEBUG=1) for the traceback")


def _validate_raising(tmp_path: Path, raised: str) -> dict[str, str]:
    """An environment whose `validate` raises ``raised`` (a Python expression)."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "import toolhost.commands.validate as v\n"
        "from toolhost.errors import RunnerError\n"
        "if sys.version_info < (3, 11):\n"
        "    from exceptiongroup import ExceptionGroup\n"
        "def main(args):\n"
        f"    raise {raised}\n"
        "v.main = main\n")
    import os

    env = {k: v for k, v in os.environ.items() if k != "TOOLHOST_DEBUG"}
    return {**env, "PYTHONPATH": str(tmp_path)}


def test_a_toolhost_error_inside_task_groups_is_its_own_one_line_error(tmp_path: Path) -> None:
    # what `run` raised when the CLI could not start: a RunnerError in a task group's group
    env = _validate_raising(tmp_path, "ExceptionGroup('g', [ExceptionGroup('h', "
                                      "[RunnerError('the CLI failed to start')])])")
    proc = subprocess.run([TOOLHOST, "validate", "x.yaml"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "toolhost: error: the CLI failed to start\n"


def test_an_unexpected_error_inside_a_group_of_one_is_named(tmp_path: Path) -> None:
    env = _validate_raising(tmp_path, "ExceptionGroup('g', [KeyError('k')])")
    proc = subprocess.run([TOOLHOST, "validate", "x.yaml"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("toolhost: internal error: KeyError: 'k'; rerun with")


def test_a_group_of_two_errors_stays_an_internal_error(tmp_path: Path) -> None:
    env = _validate_raising(tmp_path, "ExceptionGroup('g', [RunnerError('a'), KeyError('k')])")
    proc = subprocess.run([TOOLHOST, "validate", "x.yaml"], capture_output=True, text=True,
                          timeout=60, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "internal error: ExceptionGroup" in proc.stderr


@pytest.mark.parametrize(("args", "extra_env"), [
    (["--debug", "validate", "x.yaml"], {}),
    (["validate", "x.yaml", "--debug"], {}),
    (["validate", "x.yaml"], {"TOOLHOST_DEBUG": "1"}),
])
def test_debug_shows_the_traceback(tmp_path: Path, args: list[str],
                                   extra_env: dict[str, str]) -> None:
    proc = subprocess.run([TOOLHOST, *args], capture_output=True, text=True, timeout=60,
                          env={**_broken_validate(tmp_path), **extra_env})
    assert proc.returncode == 2
    assert "Traceback (most recent call last)" in proc.stderr
    assert "RuntimeError: boom" in proc.stderr


def test_a_config_error_is_located_lines_without_traceback(tmp_path: Path) -> None:
    config = tmp_path / "deep.yaml"
    config.write_text("toolhost: 1\nx: " + "[" * 10_000 + "]" * 10_000 + "\n")
    for command in (["validate"], ["tools"]):
        proc = subprocess.run([TOOLHOST, *command, str(config)], capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)
        assert "Traceback" not in proc.stderr, (command, proc.stderr)
        assert proc.returncode == 1, (command, proc.stderr)
        assert f"{config}:2:103: x[0][0][0]" in proc.stderr  # its key path, the middle cut
        assert "…[0]: nested more than 100 mappings or lists deep" in proc.stderr


def test_a_toolhost_error_inside_a_task_group_is_a_one_line_error(tmp_path: Path) -> None:
    """A Claude CLI that fails to start is reported from inside a task group: the group of
    one ToolhostError is that error, exit 1, not an internal error (red team F9)."""
    fake = tmp_path / "fakecli.sh"
    fake.write_text('#!/bin/sh\necho "error: node not found" >&2; exit 3\n')
    fake.chmod(0o755)
    root = Path(__file__).parent.parent
    proc = subprocess.run([TOOLHOST, "run", str(root / "examples/configs/demo.yaml"),
                           "--script", str(root / "examples/scenarios/demo.yaml"), "-p", "hi",
                           "--cli", str(fake)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    # whichever of the runner's two start-up checks sees the exit first (timing), one line
    assert "toolhost: error: the Claude CLI failed to start" in proc.stderr, proc.stderr
    assert "exit code 3" in proc.stderr and "node not found" in proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", [["validate"], ["tools"], ["serve", "--all"]])
def test_an_empty_config_path_is_one_line(command: list[str]) -> None:
    proc = subprocess.run([TOOLHOST, *command, ""], capture_output=True, text=True,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "no config file named (an empty path)" in proc.stderr
