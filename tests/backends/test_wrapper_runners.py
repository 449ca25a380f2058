"""Runners that fetch and run a package a value names (backends33): `gem exec {{ v }}`
installs the gem and runs its executable, as `npx` does; `uv tool run`, `mise x`, `pixi
exec`, `dnx` (.NET's npx), `stack exec`/`cabal exec`/`opam exec` and the like run the program
a value names. Load errors, as the other wrappers are; a literal program still loads."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.compile import compile_tools
from toolhost.errors import CompileError

from .test_command_backend import Config, cmd


@pytest.mark.parametrize("argv", [
    ["gem", "exec", "{{ v }}"],
    ["gem", "exec", "--", "{{ v }}"],
    ["uv", "tool", "run", "{{ v }}"],
    ["mise", "x", "--", "{{ v }}"],
    ["rtx", "x", "--", "{{ v }}"],
    ["pixi", "exec", "{{ v }}"],
    ["dnx", "{{ v }}"],
    ["stack", "exec", "{{ v }}"],
    ["cabal", "exec", "{{ v }}"],
    ["opam", "exec", "--", "{{ v }}"],
    ["devbox", "run", "{{ v }}"],
    ["volta", "run", "{{ v }}"],
    ["fnm", "exec", "--", "{{ v }}"],
])
def test_a_value_as_the_program_is_a_load_error(config: Config, argv: list[str]) -> None:
    with pytest.raises(CompileError) as info:
        compile_tools(config({"t": cmd(argv)}))
    (problem,) = info.value.problems
    assert "chooses the program" in problem.message, problem


@pytest.mark.parametrize("argv", [
    ["gem", "exec", "rubocop", "{{ v }}"],
    ["uv", "tool", "run", "ruff", "check", "--", "{{ v }}"],
    ["uv", "run", "pytest", "--", "{{ v }}"],
    ["mise", "x", "--", "node", "app.js", "{{ v }}"],
    ["dnx", "dotnet-ef", "{{ v }}"],
])
def test_a_literal_program_loads(config: Config, argv: list[Any]) -> None:
    compile_tools(config({"t": cmd(argv)}))
