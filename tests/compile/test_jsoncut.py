"""Results cut before they are serialised: the bounded size walk, the lazy JSON head, and the
notes shaping keeps."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from toolhost.backends.convert import to_result
from toolhost.compile.jsoncut import MAX_DEPTH, TooDeep, json_head, too_long
from toolhost.compile.shaping import compact_json, cut_text, shape_result
from toolhost.results import ToolResult


def random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(7 if depth < 4 else 4)
    if kind == 0:
        return rng.randrange(-10**6, 10**6)
    if kind == 1:
        return "".join(rng.choice("ab\"\\\n é☃") for _ in range(rng.randrange(20)))
    if kind == 2:
        return rng.choice([None, True, False, 1.5])
    if kind == 3:
        return rng.random()
    if kind in (4, 5):
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    return {str(rng.randrange(100)): random_value(rng, depth + 1) for _ in range(rng.randrange(6))}


def test_too_long_is_never_wrong_and_the_head_is_the_prefix() -> None:
    rng = random.Random(1234)
    for _ in range(400):
        value = random_value(rng)
        text = compact_json(value)
        for limit in (0, 5, len(text) // 2, len(text), len(text) + 1, 10**6):
            if too_long(value, limit):
                assert len(text) > limit, (value, limit)
                assert json_head(value, limit) == text[:limit]
        assert not too_long(value, 3 * len(text) + 10)  # the walk is a near lower bound


class Counted:
    made = 0

    def __str__(self) -> str:
        Counted.made += 1
        return "c" * 10


def test_a_huge_value_is_walked_and_encoded_only_as_far_as_kept() -> None:
    Counted.made = 0
    value = {"rows": [Counted() for _ in range(200_000)]}
    assert too_long(value, 1000)
    head = json_head(value, 1000)
    assert head.startswith('{"rows":["cccccccccc","') and len(head) == 1000
    assert Counted.made < 200  # not 200,000


def test_too_deep_is_refused() -> None:
    value: Any = []
    for _ in range(MAX_DEPTH + 10):
        value = [value]
    with pytest.raises(TooDeep):
        too_long(value, 10**9)
    shaped = shape_result(ToolResult(structured={"v": value}), tool="t", output="structured",
                          output_validator=None, max_chars=10**9)
    assert shaped.is_error and "nested more than 500 levels" in shaped.text_content


def test_to_result_cuts_big_values_and_bytes_before_serialising() -> None:
    result = to_result({"rows": ["x" * 100] * 100_000}, 500)
    assert result.structured is None
    (block,) = result.content
    assert block["text"].startswith('{"rows":["xxx')
    assert "showing the first 500 of more than 500 characters" in block["text"]
    small = to_result({"a": 1}, 500)
    assert small.structured == {"a": 1}
    data = to_result(b"z" * 10_000_000, 100)
    assert data.text_content.startswith("z" * 100 + "\n\n[toolhost: output cut")
    assert len(data.text_content) < 500


def test_cut_text_keeps_a_backend_cut_and_its_figures() -> None:
    precut = to_result(list(range(100_000)), 100)
    assert cut_text(precut, 100) == precut
    shaped = shape_result(precut, tool="t", output="structured", output_validator=None,
                          max_chars=100)
    assert shaped.text_content == precut.text_content
    # a smaller max_output_chars than the backend cut to: cut again, still one note
    again = cut_text(precut, 50).text_content
    assert again.startswith(json.dumps(list(range(30)), separators=(",", ":"))[:50])
    assert again.count("[toolhost: output cut") == 1 and "of more than 100 characters" in again
    plain = cut_text(ToolResult.text("a" * 300), 100).text_content
    assert "showing the first 100 of 300 characters (200 not shown)" in plain


def test_a_huge_structured_tool_result_is_not_encoded_whole() -> None:
    Counted.made = 0
    big = ToolResult(content=(), structured={"rows": [Counted() for _ in range(100_000)]})
    shaped = shape_result(big, tool="t", output="structured", output_validator=None,
                          max_chars=2000)
    assert shaped.structured is None and "output cut" in shaped.text_content
    assert Counted.made < 1000
