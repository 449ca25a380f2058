"""An upstream's embedded resources count towards ``max_output_chars`` with the text blocks
(``resources=True``), a local tool's file does not: an embedded text is cut like a text block,
a blob that does not fit is replaced by a note, and whatever the mix and order of blocks, what
the model reads is at most the limit plus one note."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.compile.shaping import cut_text, shape_result
from toolhost.results import ToolResult

NOTE_MAX = 400
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


def text(n: int, c: str = "a") -> dict[str, Any]:
    return {"type": "text", "text": c * n}


def res_text(n: int, c: str = "b") -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": "x://t", "text": c * n,
                                             "mimeType": "text/plain"}}


def res_blob(n: int) -> dict[str, Any]:
    return {"type": "resource", "resource": {"uri": "x://b", "blob": "Q" * n,
                                             "mimeType": "application/zip"}}


def readable(result: ToolResult) -> int:
    """Characters the model reads: text blocks and embedded resources' text and blob."""
    total = 0
    for block in result.content:
        if block.get("type") == "text":
            total += len(block["text"])
        elif block.get("type") == "resource":
            inner = block["resource"]
            total += len(inner.get("text", "")) + len(inner.get("blob", ""))
    return total


@pytest.mark.parametrize("blocks", [
    [res_text(5000)], [res_blob(5000)], [text(600), res_text(600)], [res_text(600), text(600)],
    [res_blob(800), text(300)], [text(300), res_blob(800)], [res_text(600), res_text(600)],
    [IMAGE, res_text(3000), IMAGE], [res_blob(999), res_blob(2)], [text(999), res_text(2)],
])
def test_embedded_resources_are_cut_with_the_text(blocks: list[dict[str, Any]]) -> None:
    result = ToolResult(content=tuple(blocks))
    cut = cut_text(result, 1000, resources=True)
    for shaped in (cut, shape_result(cut, tool="t", output="text", output_validator=None,
                                     max_chars=1000)):
        assert readable(shaped) <= 1000 + NOTE_MAX
        joined = str(shaped.content)
        assert "[toolhost: output cut:" in joined
        assert sum(b.get("type") == "image" for b in shaped.content) == \
            sum(b.get("type") == "image" for b in blocks)  # images stay
        for block in shaped.content:
            if block.get("type") == "resource":
                assert "blob" not in block["resource"] or len(block["resource"]["blob"]) <= 1000


def test_what_fits_is_left_alone() -> None:
    result = ToolResult(content=(text(300), res_text(300), res_blob(300), IMAGE))
    assert cut_text(result, 1000, resources=True) is result


@settings(max_examples=300, deadline=None)
@given(sizes=st.lists(st.tuples(st.sampled_from(["text", "res", "blob", "image"]),
                                st.integers(0, 3000)), max_size=6),
       limit=st.integers(1, 4000))
def test_the_model_never_reads_more_than_the_limit_and_a_note(
        sizes: list[tuple[str, int]], limit: int) -> None:
    make = {"text": text, "res": res_text, "blob": res_blob, "image": lambda n: IMAGE}
    result = ToolResult(content=tuple(make[kind](n) for kind, n in sizes))
    shaped = cut_text(result, limit, resources=True)
    assert readable(shaped) <= max(limit, readable(result) if readable(result) <= limit
                                   else limit) + NOTE_MAX
    if readable(result) <= limit:
        assert shaped is result


def test_a_local_tools_file_is_not_cut() -> None:
    result = ToolResult(content=(text(10), res_blob(100_000)))
    assert cut_text(result, 1000) is result
