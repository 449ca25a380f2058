"""What the model reads of a result, and cutting it to a size the CLI passes intact.

The Claude CLI shows the model only the compact JSON of ``structuredContent`` when a result has
one (text blocks are dropped), and replaces any result over about 49,000 characters with a 2 KB
preview. So each tool says what the model should read:

- ``structured``: ``structuredContent`` is kept; the model reads its JSON.
- ``text``: ``structuredContent`` is left out (unless the tool declares an outputSchema, which
  MCP says must then be honoured); the model reads the text blocks.

Then the part the model reads is cut to ``max_output_chars`` with a note saying how much was cut
and how to get the rest. A structured result that is too long loses its ``structuredContent``
and the model reads the (cut) JSON text; with a declared outputSchema it becomes an error
instead, since the schema promises structured content.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from jsonschema.protocols import Validator

from toolhost.results import ToolResult

__all__ = ["check_structured", "compact_json", "cut_text", "shape_result"]


def compact_json(value: Any) -> str:
    """The JSON the CLI shows the model for ``structuredContent``."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _note(kept: int, total: int) -> str:
    return (f"\n\n[toolhost: output cut: showing the first {kept:,} of {total:,} characters "
            f"({total - kept:,} not shown). To see the rest, call the tool again asking for "
            "less: a narrower query, a filter, or a range.]")


def cut_text(result: ToolResult, max_chars: int) -> ToolResult:
    """Cut the text blocks to ``max_chars`` characters in all, with a note; others stay."""
    texts = [len(str(b.get("text", ""))) for b in result.content if b.get("type") == "text"]
    total = sum(texts)
    if total <= max_chars:
        return result
    budget = max_chars
    blocks: list[Mapping[str, Any]] = []
    noted = False
    for block in result.content:
        if block.get("type") != "text":
            blocks.append(block)
            continue
        if noted:
            continue
        text = str(block.get("text", ""))
        if len(text) <= budget:
            blocks.append(block)
            budget -= len(text)
            continue
        blocks.append({**block, "text": text[:budget] + _note(max_chars, total)})
        noted = True
    return ToolResult(content=tuple(blocks), structured=None, is_error=result.is_error)


def check_structured(result: ToolResult, validator: Validator, tool: str) -> ToolResult | None:
    """An error result when ``structuredContent`` breaks the outputSchema, else None."""
    if result.structured is None:
        return ToolResult.error(f"Tool '{tool}' declares an outputSchema but returned no "
                                "structured content.")
    errors = sorted(validator.iter_errors(result.structured), key=lambda e: list(e.path))
    if not errors:
        return None
    described = "; ".join(f"{'.'.join(str(p) for p in e.path) or '(root)'}: {e.message}"
                          for e in errors[:5])
    return ToolResult.error(f"Tool '{tool}' returned a result that does not match its "
                            f"outputSchema: {described}")


def shape_result(result: ToolResult, *, tool: str, output: Literal["structured", "text"],
                 output_validator: Validator | None, max_chars: int) -> ToolResult:
    """Apply the outputSchema check, the structured/text choice and the size cut."""
    if result.is_error:
        return cut_text(ToolResult(content=result.content, is_error=True), max_chars)
    if output_validator is not None:
        failure = check_structured(result, output_validator, tool)
        if failure is not None:
            return failure
    structured = result.structured
    if structured is None:
        return cut_text(result, max_chars)
    has_text = any(b.get("type") == "text" for b in result.content)
    if output == "text" and output_validator is None:
        content = result.content if has_text else (
            *result.content, {"type": "text", "text": compact_json(structured)})
        return cut_text(ToolResult(content=content, is_error=False), max_chars)
    seen = compact_json(structured)
    if len(seen) <= max_chars:
        return result
    # Too long to pass as structured JSON: the model reads the cut JSON text instead.
    text_blocks = tuple(b for b in result.content if b.get("type") == "text")
    others = tuple(b for b in result.content if b.get("type") != "text")
    content = text_blocks or ({"type": "text", "text": seen},)
    cut = cut_text(ToolResult(content=others + content), max_chars)
    if output_validator is not None:
        return ToolResult(content=cut.content, is_error=True)
    return cut
