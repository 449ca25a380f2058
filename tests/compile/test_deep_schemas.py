"""A schema nested too deeply to be checked (a ``list[list[...]]`` annotation, a declared
param of arrays in arrays) is a located load error naming the param, never an internal
error (``check_schema`` recursed past Python's limit at about 150 levels)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig
from toolhost.errors import CompileError

Config = Callable[..., HostConfig]

DEPTHS = [150, 300, 900, 1200, 5000]


def _module(tmp_path: Path, depth: int) -> str:
    name = f"th_deep_{depth}_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(f'''
        T = list
        for _ in range({depth}):
            T = list[T]
        def deep(x: T) -> str:
            return "ok"
        def deep_dict(x: dict[str, T]) -> str:
            return "ok"
        '''))
    return name


def _nested(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return schema


@pytest.mark.parametrize("fn", ["deep", "deep_dict"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_a_deep_annotation_is_a_load_error(config: Config, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch, depth: int,
                                           fn: str) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    name = _module(tmp_path, depth)
    with pytest.raises(CompileError) as caught:
        compile_tools(config({"t": {"kind": "python", "options": {"function": f"{name}:{fn}"}}}))
    text = str(caught.value)
    assert "test.yaml:" in text and "servers.demo.tools.t" in text, text
    assert "deep" in text or "recursion" in text, text


@pytest.mark.parametrize("depth", [150, 300, 900])
def test_a_deep_declared_param_is_a_load_error(config: Config, depth: int) -> None:
    with pytest.raises(CompileError) as caught:
        compile_tools(config({"t": {"kind": "command", "options": {"argv": ["echo", "{{ x }}"]},
                                    "params": {"x": _nested(depth)}}}))
    assert "at properties/x: it nests" in str(caught.value), caught.value


def test_validate_says_it_in_one_line(tmp_path: Path) -> None:
    _module(tmp_path, 300)
    name = next(p.stem for p in tmp_path.glob("th_deep_*.py"))
    config = tmp_path / "deep.yaml"
    config.write_text("toolhost: 1\nservers:\n  a:\n    tools:\n"
                      f"      t: {{python: '{name}:deep'}}\n")
    done = run_cli(["validate", str(config)])
    assert done.returncode != 0
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert "deep.yaml:5:7: servers.a.tools.t.params: inputSchema is not a valid JSON Schema at " \
           "properties/x: it nests 302 levels deep" in done.stderr, done.stderr
