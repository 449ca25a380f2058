"""A tool's validator never leaves its schema: a reference elsewhere is an error, not a fetch,
and a schema that cannot be checked refuses the call (fails closed) in one line."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.compile.validators import LazyValidator
from toolhost.results import ToolResult

from ..gateway.conftest import tarpit


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A local port that never answers, and what each connection to it sent."""
    with tarpit() as found:
        yield found


def _tool(schema: Mapping[str, Any]) -> CompiledTool:
    async def invoke(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
        return ToolResult.text("ran")
    return CompiledTool(name="t", server="s", description="d", input_schema=schema,
                        validator=LazyValidator(schema, formats=True),  # type: ignore[arg-type]
                        invoke=invoke)


@pytest.mark.parametrize("ref", ["http://127.0.0.1:{port}/x", "http://127.0.0.1:{port}/x#/a",
                                 "file:///etc/passwd", "other.json"])
@pytest.mark.anyio
async def test_a_reference_elsewhere_is_never_retrieved(listener: tuple[int, list[bytes]],
                                                        ref: str) -> None:
    port, seen = listener
    schema = {"type": "object", "properties": {"s": {"$ref": ref.format(port=port)}}}
    result = await _tool(schema).call({"s": "x"}, CallContext())
    assert result.is_error and "ran" not in str(result.content)
    text = result.content[0]["text"]
    assert text.startswith("Tool 't' cannot be called: its inputSchema cannot be checked (")
    assert "\n" not in text
    assert seen == []


@pytest.mark.anyio
async def test_a_schema_that_recurses_for_ever_refuses_the_call() -> None:
    schema = {"type": "object", "properties": {"s": {"$ref": "#/$defs/a"}},
              "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}}
    result = await _tool(schema).call({"s": "x"}, CallContext())
    assert result.is_error
    assert "its inputSchema cannot be checked (it nests or refers too deeply)" in \
        result.content[0]["text"]
