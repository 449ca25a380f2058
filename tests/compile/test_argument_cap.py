"""Arguments the quick check cannot prove are checked by jsonschema only up to a size."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.compile.tool import CompiledTool
from toolhost.config import load_config

PARAMS = {
    # contains + minContains: the quick check cannot prove it, jsonschema walks every item
    "contains": "{x: {type: array, items: {type: integer}, contains: {const: 1}, minContains: 2}}",
    "unique": "{x: {type: array, items: {type: object}, uniqueItems: true}}",
    "object": "{x: {type: object, additionalProperties: {type: integer, not: {const: 5}}}}",
}


def _tool(tmp_path: Path, params: str) -> CompiledTool:
    config = tmp_path / "c.yaml"
    config.write_text(textwrap.dedent(f"""\
        toolhost: 1
        servers:
          s:
            tools:
              t:
                command: [echo, ok]
                params: {params}
        """))
    return compile_tools(load_config(config, layers=False)).tool("s", "t")


def _call(tool: CompiledTool, arguments: dict[str, Any]) -> str:
    async def go() -> str:
        return (await tool.call(arguments, CallContext())).text_content
    return anyio.run(go)


def _big(kind: str, n: int) -> Any:
    if kind == "object":
        return {f"k{i}": 1 for i in range(n)}
    return [{"k": i} for i in range(n)] if kind == "unique" else [1] * n


@pytest.mark.parametrize("kind", sorted(PARAMS))
def test_too_many_values_are_refused_before_jsonschema(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    tool = _tool(tmp_path, PARAMS[kind])
    checked: list[int] = []
    real = CompiledTool._check

    def noting(self: CompiledTool, arguments: Any) -> list[str]:
        checked.append(1)
        return real(self, arguments)

    monkeypatch.setattr(CompiledTool, "_check", noting)
    over = _call(tool, {"x": _big(kind, 100_001)})
    assert "more than 100,000 values" in over and "send fewer" in over, over
    assert checked == []  # jsonschema never saw it
    under = _call(tool, {"x": _big(kind, 10_500)})  # checked (off the event loop)
    assert "more than" not in under and checked == [1], under


def test_the_cap_is_named_and_raised_by_its_variable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tool = _tool(tmp_path, PARAMS["contains"])
    monkeypatch.setenv("TOOLHOST_MAX_ARGUMENT_VALUES", "1000")
    over = _call(tool, {"x": [1] * 1_001})
    assert "more than 1,000 values" in over and "TOOLHOST_MAX_ARGUMENT_VALUES" in over, over
    assert len(over.splitlines()) == 1, over
    monkeypatch.setenv("TOOLHOST_MAX_ARGUMENT_VALUES", "2000")
    assert "more than" not in _call(tool, {"x": [1] * 1_001})  # raised: checked


@pytest.mark.parametrize(("params", "number"), [
    ("{x: {type: number, multipleOf: 0.1}}", 10**400),
    ("{x: {type: integer, multipleOf: 1.5}}", -(10**3000)),
], ids=["number", "integer"])
def test_an_integer_too_large_for_multiple_of_is_an_invalid_argument(
        tmp_path: Path, params: str, number: int) -> None:
    # jsonschema divides it by the float multipleOf and raised OverflowError, which read as
    # "its inputSchema cannot be checked": the schema is fine, the argument is too large
    text = _call(_tool(tmp_path, params), {"x": number})
    assert text.startswith("Invalid arguments for tool 't': a number is too large to check"), \
        text
    assert "inputSchema cannot be checked" not in text
    # an ordinary multiple still passes, a non-multiple is still refused
    tool = _tool(tmp_path, params)
    assert _call(tool, {"x": 3}).startswith("ok")
    assert _call(tool, {"x": 4.05 if "0.1" in params else 4}).startswith("Invalid arguments")
