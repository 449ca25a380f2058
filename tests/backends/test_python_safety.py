"""validate refuses dangerous entry points and untyped parameters, each with a loud opt-out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.errors import CompileError


def write(tmp_path: Path, tools: str, module: str = "") -> Path:
    """The config (and module) in ``tmp_path``; each test's module gets its own name, as the
    config's directory stays on sys.path."""
    name = f"th_safety_{abs(hash(tmp_path)) % 10**8}"
    sys.modules.pop(name, None)
    if module:
        (tmp_path / f"{name}.py").write_text(module)
    path = tmp_path / "s.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                    + tools.replace("th_safety_tools", name))
    return path


@pytest.mark.parametrize("ref", ["os:system", "subprocess:getoutput", "builtins:eval",
                                 "builtins:exec", "shutil:rmtree", "pty:spawn", "os:popen",
                                 "subprocess:run", "th_safety_tools:run"])
def test_dangerous_entry_points_are_load_errors(tmp_path: Path, ref: str) -> None:
    path = write(tmp_path, f"      t: {{python: '{ref}'}}\n",
                 "from subprocess import run\n")
    with pytest.raises(CompileError) as info:
        compile_tools(load_config(str(path)))
    (problem,) = info.value.problems
    assert problem.file.endswith("s.yaml") and problem.line == 5
    assert "dangerously_allow_entry_point: true" in problem.hint
    assert "comes from" in problem.message and ref.split(':')[1] + "'" in problem.message


def test_the_opt_out_is_explicit(tmp_path: Path) -> None:
    path = write(tmp_path, "      t:\n        python: {function: 'subprocess:getoutput', "
                 "dangerously_allow_entry_point: true, allow_untyped: true}\n")
    tools = compile_tools(load_config(str(path)))
    assert "cmd" in tools.tool("s", "t").input_schema["properties"]


def test_untyped_parameters_are_load_errors_unless_declared_or_allowed(tmp_path: Path) -> None:
    module = ("from typing import Any\n"
              "def loose(a, b: Any, c: int, **extra) -> str:\n    return 'x'\n"
              "def typed(a: str) -> str:\n    return a\n")
    path = write(tmp_path, "      loose: {python: 'th_safety_tools:loose'}\n"
                 "      typed: {python: 'th_safety_tools:typed'}\n", module)
    with pytest.raises(CompileError) as info:
        compile_tools(load_config(str(path)))
    (problem,) = info.value.problems
    assert "'a', 'b', '**extra' of the function have no usable type" in problem.message
    assert "allow_untyped: true" in problem.hint
    declared = write(tmp_path, "      loose:\n        python: {function: 'th_safety_tools:loose'}\n"
                     "        params: {a: string, b: integer}\n", module)
    with pytest.raises(CompileError, match="'\\*\\*extra'"):
        compile_tools(load_config(str(declared)))
    allowed = write(tmp_path, "      loose:\n        python: {function: "
                    "'th_safety_tools:loose', allow_untyped: true}\n", module)
    compile_tools(load_config(str(allowed)))


def test_validate_prints_one_located_line(tmp_path: Path) -> None:
    path = write(tmp_path, "      sh: {python: 'os:system'}\n")
    done = subprocess.run([sys.executable, "-m", "toolhost", "validate", str(path)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr + done.stdout
    assert f"{path}:5:" in done.stderr + done.stdout
    assert "'os:system' comes from 'os'" in done.stderr + done.stdout
