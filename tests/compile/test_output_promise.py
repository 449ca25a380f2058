"""An outputSchema is promised only where every call can keep it: a command whose output is
text (`stdout: text`/`binary`) with `output_schema:` is refused at load (every call failed
"declares an outputSchema but returned no structured content"), and a python function
annotated with a list of items of any type (`-> list`, a list of text and content blocks)
gets no generated outputSchema (it failed every call returning a resource link)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.compile.signature import inspect_callable
from toolhost.config import load_config
from toolhost.errors import CompileError

SCHEMA = "{type: object, properties: {a: {type: integer}}}"


def _config(tmp_path: Path, tools: str) -> Path:
    path = tmp_path / "c.yaml"
    path.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n" + textwrap.indent(
        textwrap.dedent(tools), "      "))
    return path


@pytest.mark.parametrize("stdout", [None, "text", "binary"])
def test_a_command_with_text_output_cannot_promise_an_output_schema(
        tmp_path: Path, stdout: str | None) -> None:
    mode = f", stdout: {stdout}" if stdout else ""
    path = _config(tmp_path, f"""\
        t:
          command: {{argv: [echo, '{{"a": 1}}']{mode}}}
          output_schema: {SCHEMA}
        """)
    with pytest.raises(CompileError) as info:
        compile_tools(load_config(path, layers=False))
    (problem,) = info.value.problems
    assert str(problem).startswith(f"{path}:5:7: servers.s.tools.t.output_schema: ")
    assert f"`stdout: {stdout or 'text'}`" in str(problem) and "stdout: json" in str(problem)


@pytest.mark.anyio
@pytest.mark.parametrize("stdout", ["json", "lines"])
async def test_a_command_with_structured_output_keeps_its_schema(
        tmp_path: Path, stdout: str) -> None:
    path = _config(tmp_path, f"""\
        t:
          command: {{argv: [echo, '{{"a": 1}}'], stdout: {stdout}}}
          output_schema: {{type: object}}
        """)
    compiled = compile_tools(load_config(path, layers=False))
    tool = compiled.tool("s", "t")
    assert tool.output_schema == {"type": "object"}
    result = await tool.call({}, CallContext())
    assert not result.is_error and result.structured is not None
    await compiled.aclose()


def test_a_list_of_items_of_any_type_promises_no_output_schema() -> None:
    def bare() -> list: ...  # type: ignore[type-arg]
    def anything() -> list[Any]: ...
    def objects() -> tuple[object, ...]: ...
    def ints() -> list[int]: ...
    for fn in (bare, anything, objects):
        assert inspect_callable(fn).output_schema is None, fn
    assert inspect_callable(ints).output_schema is not None
