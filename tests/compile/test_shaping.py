from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.compile.shaping import compact_json, shape_result
from toolhost.config.model import HostConfig
from toolhost.results import ToolResult

Config = Callable[..., HostConfig]
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


def shape(result: ToolResult, *, output: Any = "structured", schema: Any = None,
          max_chars: int = 100) -> ToolResult:
    validator = Draft202012Validator(schema) if schema is not None else None
    return shape_result(result, tool="t", output=output, output_validator=validator,
                        max_chars=max_chars)


def test_structured_kept_or_dropped_by_choice() -> None:
    result = ToolResult.json({"a": 1})
    assert shape(result) == result
    text = shape(result, output="text")
    assert text.structured is None and text.text_content == '{"a": 1}'
    bare = ToolResult(structured={"a": 1})
    assert shape(bare, output="text").text_content == '{"a":1}'
    # a declared outputSchema keeps structuredContent even in text mode (MCP requires it)
    kept = shape(result, output="text", schema={"type": "object"})
    assert kept.structured == {"a": 1}


def test_output_schema_mismatch_is_an_error_naming_the_problem() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    bad = shape(ToolResult.json({"a": 1}), schema=schema)
    assert bad.is_error
    assert bad.text_content == ("Tool 't' returned a result that does not match its "
                                "outputSchema: a: 1 is not of type 'string'")
    missing = shape(ToolResult.text("hi"), schema=schema)
    assert missing.is_error and "returned no structured content" in missing.text_content
    assert not shape(ToolResult.json({"a": "x"}), schema=schema).is_error


def test_long_text_is_cut_with_a_note_and_images_stay() -> None:
    result = ToolResult(content=({"type": "text", "text": "a" * 80}, IMAGE,
                                 {"type": "text", "text": "b" * 80},
                                 {"type": "text", "text": "c" * 10}))
    cut = shape(result)
    texts = [b for b in cut.content if b["type"] == "text"]
    assert len(texts) == 2 and texts[0]["text"] == "a" * 80
    assert texts[1]["text"].startswith("b" * 20 + "\n\n[toolhost: output cut: showing the first "
                                       "100 of 170 characters (70 not shown).")
    assert IMAGE in cut.content
    assert shape(ToolResult.text("x" * 100)).text_content == "x" * 100  # at the limit: intact


def test_too_long_structured_becomes_cut_text() -> None:
    value = {"items": list(range(100))}
    cut = shape(ToolResult.json(value))
    assert cut.structured is None and not cut.is_error
    assert cut.text_content.startswith(json.dumps(value)[:100] + "\n\n[toolhost: output cut")
    assert len(compact_json(value)) > 100
    with_schema = shape(ToolResult.json(value), schema={"type": "object"})
    assert with_schema.is_error and with_schema.structured is None


def test_errors_are_cut_too() -> None:
    cut = shape(ToolResult.error("e" * 500))
    assert cut.is_error and cut.text_content.startswith("e" * 100 + "\n\n[toolhost: output cut")


@pytest.mark.anyio
async def test_through_a_compiled_tool(config: Config) -> None:
    cfg = config({
        "stats": {"kind": "python", "options": {"function": "toolhost.demo:word_stats"}},
        "stats_text": {"kind": "python", "options": {"function": "toolhost.demo:word_stats"},
                       "output": "text"},
        "count": {"kind": "command", "options": {"argv": ["printf", "%0500d", "0"]},
                  "max_output_chars": 50},
    })
    async with compile_tools(cfg) as compiled:
        stats = compiled.tool("demo", "stats")
        assert stats.output == "structured"
        assert stats.descriptor()["outputSchema"]["required"] == ["words", "characters", "top"]
        result = await stats.call({"text": "a b a"}, CallContext())
        assert result.structured == {"words": 3, "characters": 5, "top": ["a", "b"]}
        # the generated outputSchema is declared, so structuredContent stays in text mode
        text = await compiled.tool("demo", "stats_text").call({"text": "a"}, CallContext())
        assert text.structured is not None
        count = await compiled.tool("demo", "count").call({}, CallContext())
        assert count.text_content.startswith("0" * 50 + "\n\n[toolhost: output cut: showing "
                                             "the first 50 of 500 characters")
