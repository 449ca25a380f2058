"""``uniqueItems`` answers as jsonschema's own does, in linear time; a big argument is checked
off the event loop."""

from __future__ import annotations

import textwrap
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolhost import regex
from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.compile.tool import CompiledTool
from toolhost.config import load_config

ARRAYS: list[list[Any]] = [
    [1, 1.0], [True, 1], [False, 0], [None, None], ["1", 1], [1, 2, 3],
    [{"a": 1, "b": 2}, {"b": 2, "a": 1}], [{"a": [1]}, {"a": [True]}], [[1], [1.0]],
    [[1, 2], [2, 1]], [{"a": None}, {}],
    [{"a": {"b": [1, {"c": 2}]}}, {"a": {"b": [1, {"c": 2.0}]}}],
    [[], {}], [[], []], [{}, {}], ["a", "b", "a"], [0.5, 0.5], [10**30, 10**30 + 1],
]


@pytest.mark.parametrize("items", ARRAYS)
def test_unique_items_agrees_with_jsonschema(items: list[Any]) -> None:
    from jsonschema import Draft202012Validator

    schema = {"type": "array", "uniqueItems": True}
    ours = regex.validator_class()(schema).is_valid(items)
    assert ours == Draft202012Validator(schema).is_valid(items)


def test_unique_objects_are_not_compared_pairwise(monkeypatch: pytest.MonkeyPatch) -> None:
    # jsonschema compared each object with every other: 200,000 objects took minutes
    import jsonschema._utils as utils

    compared = []
    real = utils.equal

    def counting(one: Any, two: Any) -> Any:
        compared.append(1)
        return real(one, two)

    monkeypatch.setattr(utils, "equal", counting)
    validator = regex.validator_class()({"type": "array", "uniqueItems": True})
    items = [{"k": i} for i in range(3000)]
    assert validator.is_valid(items)
    assert not validator.is_valid([*items, {"k": 5}])
    assert len(compared) < 100


def test_a_big_argument_is_checked_off_the_event_loop(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "c.yaml"
    config.write_text(textwrap.dedent("""\
        toolhost: 1
        servers:
          s:
            tools:
              t:
                command: [echo, ok]
                params: {x: {type: array, items: {type: object}, uniqueItems: true}}
        """))
    tool = compile_tools(load_config(config, layers=False)).tool("s", "t")
    threads: list[int] = []
    real = CompiledTool._check

    def noting(self: CompiledTool, arguments: Any) -> list[str]:
        threads.append(threading.get_ident())
        return real(self, arguments)

    monkeypatch.setattr(CompiledTool, "_check", noting)

    async def go(arguments: dict[str, Any]) -> str:
        result = await tool.call(arguments, CallContext())
        return result.text_content

    small = anyio.run(go, {"x": [{"k": 1}, {"k": 1}]})
    big = anyio.run(go, {"x": [{"k": i} for i in range(20_000)] + [{"k": 0}]})
    assert "must be unique" in small and "must be unique" in big, (small, big)
    assert threads[0] == threading.get_ident() != threads[1]
