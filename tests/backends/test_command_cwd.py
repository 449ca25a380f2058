"""A command tool's working directory: a located load error when it is missing, not a
directory or written as a template; at call time a directory removed since the load is said as
such, never "the program was not found". And a NUL in an env value names the argument.
Real subprocesses and real directories."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio


def _problem(cfg: Any) -> Any:
    with pytest.raises(CompileError) as info:
        compile_tools(cfg)
    (problem,) = info.value.problems
    return problem


def _kinds(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """name -> (cwd, words of its load error)."""
    (tmp_path / "file").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    return {
        "missing": (str(tmp_path / "no-such-dir"), "does not exist"),
        "missing-deep": (str(tmp_path / "a" / "b" / "c"), "does not exist"),
        "file": (str(tmp_path / "file"), "is a regular file, not a directory"),
        "fifo": (str(tmp_path / "fifo"), "is a FIFO (named pipe), not a directory"),
        "under-a-file": (str(tmp_path / "file" / "sub"), "cannot use"),
        "var": (str(tmp_path) + "/{{ d }}", "cwd is not a template"),
        "tag": ("{% if x %}/tmp{% endif %}", "cwd is not a template"),
        "comment": (str(tmp_path) + "{# c #}", "cwd is not a template"),
        "var-only": ("{{ d }}", "cwd is not a template"),
    }


@pytest.mark.parametrize("kind", ["missing", "missing-deep", "file", "fifo", "under-a-file",
                                  "var", "tag", "comment", "var-only"])
def test_a_cwd_that_cannot_be_used_is_a_located_load_error(
        config: Config, tmp_path: Path, kind: str) -> None:
    cwd, words = _kinds(tmp_path)[kind]
    problem = _problem(config({"t": cmd(["pwd"], options={"cwd": cwd})}))
    assert problem.key_path.endswith("command.cwd"), problem
    assert words in problem.message, problem
    assert "\n" not in str(problem)


@pytest.mark.parametrize("kind", ["missing", "file", "var"])
def test_the_server_s_cwd_is_checked_for_its_command_tools(
        config: Config, tmp_path: Path, kind: str) -> None:
    from toolhost.config.model import ServerDefaults

    cwd, words = _kinds(tmp_path)[kind]
    problem = _problem(config({"t": cmd(["pwd"])}, defaults=ServerDefaults(cwd=cwd)))
    assert words in problem.message and "the server's cwd" in problem.message, problem


async def test_a_cwd_removed_after_the_load_is_said_as_such(config: Config,
                                                            tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    compiled = compile_tools(config({"t": cmd(["pwd"], options={"cwd": str(work)})}))
    try:
        from toolhost.backends.base import CallContext

        ran = await compiled.tool("demo", "t").call({}, CallContext())
        assert ran.text_content.strip() == str(work)
        work.rmdir()
        gone = await compiled.tool("demo", "t").call({}, CallContext())
        assert gone.is_error and "was not found" not in gone.text_content
        assert gone.text_content.startswith(f"The working directory {work} of this tool does "
                                            "not exist"), gone
        work.write_text("now a file")
        replaced = await compiled.tool("demo", "t").call({}, CallContext())
        assert replaced.is_error and "is now a regular file, not a directory" in \
            replaced.text_content, replaced
    finally:
        await compiled.aclose()


async def test_a_missing_program_is_still_said_as_such(config: Config, tmp_path: Path) -> None:
    cfg = config({"t": cmd(["no-such-program-xyz"], options={"cwd": str(tmp_path)})})
    result = await run(cfg, "t", {})
    assert result.text_content == ("The program 'no-such-program-xyz' was not found on this "
                                   "machine (check PATH).")


def test_validate_reports_the_cwd_with_its_line(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(
        "toolhost: 1\nservers:\n  c:\n    tools:\n      t:\n"
        "        command: {argv: [pwd], cwd: ./no-such-dir}\n"
        "permissions:\n  allow: [mcp__c]\n")
    proc = subprocess.run([sys.executable, "-m", "toolhost", "validate", "--no-layers",
                           str(config)], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0
    assert f"{config}:6:" in proc.stderr, proc.stderr
    assert "servers.c.tools.t.command.cwd" in proc.stderr
    assert f"the directory {tmp_path / 'no-such-dir'} does not exist" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("args", "named"), [
    ({"v": "a\0b"}, "argument 'v'"),
    ({"v": "\0"}, "argument 'v'"),
    ({"v": "ok", "w": "x\0"}, "argument 'w'"),
    ({"v": "ok", "w": "\0\0"}, "argument 'w'"),
])
async def test_a_nul_in_an_env_value_names_the_argument(
        config: Config, args: dict[str, Any], named: str) -> None:
    cfg = config({"t": cmd(["env"], options={"env": {"V": "{{ v }}", "W": "pre-{{ w }}"}},
                           params={"v": {"type": "string"},
                                   "w": {"type": "string", "default": ""}},
                           required=("v",))})
    result = await run(cfg, "t", args)
    assert result.is_error
    assert result.text_content.startswith(f"Refused to run the command: {named} contains a "
                                          "NUL character, which the environment variable "), \
        result
