"""make's variable assignments from a value (backends27): `make "X={{ v }}"` with
`$(shell CMD)` ran CMD; `make "{{ target }}"` with `CFLAGS=$(shell CMD)` too; so did an env
value make expands. Load errors or refused calls; a target the model names still runs."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd, run

pytestmark = pytest.mark.anyio

MAKEFILE = "all:\n\t@echo built $(X)\nhello:\n\t@echo hello\n"


@pytest.mark.parametrize("tool", [
    cmd(["make", "X={{ v }}"]),
    cmd(["make", "all", "SHELL={{ v }}"]),
    cmd(["make", "-s", "CFLAGS+={{ v }}", "all"]),
    cmd(["gmake", "X!={{ v }}"]),  # != runs the shell at once
    cmd(["make", "{{ n }}=1"]),  # the model would choose the variable (MAKEFILES, SHELL)
    cmd(["timeout", "5", "make", "X:={{ v }}"]),
    cmd(["make", "all"], options={"env": {"X": "{{ v }}"}}),
])
def test_a_value_make_expands_is_a_load_error(config: Config, tool: dict[str, Any]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": tool}))
    (problem,) = info.value.problems
    assert "make" in problem.message and "expand" in problem.message, problem
    assert "unsafe_code_placeholders" in (problem.hint or ""), problem
    tool["options"]["unsafe_code_placeholders"] = True
    compile_tools(config({"t": tool}))


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
@pytest.mark.parametrize("target", ["X=$(shell touch marker)", "SHELL=/bin/false",
                                    "all X=$(shell touch marker)"])
async def test_a_target_never_becomes_an_assignment(config: Config, tmp_path: Path,
                                                    target: str) -> None:
    (tmp_path / "Makefile").write_text(MAKEFILE)
    tool = cmd(["make", "-s", "{{ target }}"], options={"cwd": str(tmp_path)})
    result = await run(config({"t": tool}), "t", {"target": target})
    assert result.is_error
    assert "a variable assignment" in result.text_content, result.text_content
    assert not (tmp_path / "marker").exists()
    result = await run(config({"t": tool}), "t", {"target": "hello"})
    assert not result.is_error, result.text_content
    assert "hello" in result.text_content
