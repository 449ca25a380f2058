"""A python tool that returns a generator, an async generator, an iterator, a view or a range
gets its items, not their ``repr`` (``<generator object gen at 0x7f...>``): read once and no
further than can be kept (an endless one is cut with the usual note), in-process and in a
worker. A one-time iterator inside a returned value is an error naming it."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig

Config = Callable[..., HostConfig]

MODULE = '''
import asyncio, collections, itertools

def gen() -> object:
    yield 1
    yield "two"

def endless() -> object:
    return itertools.count()

def mapped() -> object:
    return map(str, [1, 2])

def zipped() -> object:
    return zip("ab", [1, 2])

def keys() -> object:
    return {"a": 1, "b": 2}.keys()

def items() -> object:
    return {"a": 1}.items()

def ranged() -> object:
    return range(3)

def huge_range() -> object:
    return range(10**12)

def deque() -> object:
    return collections.deque([1, 2])

def nested_views() -> object:
    d = {"a": [1]}
    return {"k": d.keys(), "v": d.values(), "r": range(2)}

async def agen() -> object:
    yield 1
    await asyncio.sleep(0)
    yield 2

async def aendless() -> object:
    n = 0
    while True:
        yield n
        n += 1

async def returns_agen() -> object:
    return agen()

def sync_returns_agen() -> object:
    return agen()

async def araises() -> object:
    yield 1
    raise ValueError("mid-stream")

def nested_gen() -> object:
    return {"g": (i for i in range(3))}

def nested_agen() -> object:
    return [agen()]
'''

# function -> the structured content, or the start of the error text
RETURNS: dict[str, Any] = {
    "gen": {"result": [1, "two"]},
    "mapped": {"result": ["1", "2"]},
    "zipped": {"result": [["a", 1], ["b", 2]]},
    "keys": {"result": ["a", "b"]},
    "items": {"result": [["a", 1]]},
    "ranged": {"result": [0, 1, 2]},
    "deque": {"result": [1, 2]},
    "nested_views": {"k": ["a"], "v": [[1]], "r": [0, 1]},
    "agen": {"result": [1, 2]},
    "returns_agen": {"result": [1, 2]},
    "sync_returns_agen": {"result": [1, 2]},
}
ENDLESS = ["endless", "huge_range", "aendless"]
FAILS = {
    "araises": "Tool 'araises' failed: ValueError: mid-stream",
    "nested_gen": "Tool 'nested_gen' failed: TypeError: the result holds a one-time iterator "
                  "(generator) inside it: return a list",
    "nested_agen": "Tool 'nested_agen' failed: TypeError: the result holds an async iterator "
                   "(async_generator) inside it: return a list",
}
ISOLATIONS = ["in-process", "process"]


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"th_iterables_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


async def _call(config: Config, module: str, fn: str, isolation: str) -> Any:
    compiled = compile_tools(config({fn: {
        "kind": "python", "options": {"function": f"{module}:{fn}", "isolation": isolation},
        "timeout": 30, "max_output_chars": 2_000}}))
    try:
        return await compiled.tool("demo", fn).call({}, CallContext(tool=fn))
    finally:
        await compiled.aclose()


@pytest.mark.anyio
@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("fn", list(RETURNS))
async def test_the_items_are_the_result(config: Config, module: str, fn: str,
                                        isolation: str) -> None:
    result = await _call(config, module, fn, isolation)
    assert not result.is_error, result.text_content
    assert result.structured == RETURNS[fn]
    assert "object at 0x" not in result.text_content


@pytest.mark.anyio
@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("fn", ENDLESS)
async def test_an_endless_one_is_cut(config: Config, module: str, fn: str,
                                     isolation: str) -> None:
    result = await _call(config, module, fn, isolation)
    assert not result.is_error, result.text_content
    assert result.text_content.startswith("[0,1,2,3,")
    assert "[toolhost: output cut: showing the first 2,000 of more than 2,000" in \
        result.text_content


@pytest.mark.anyio
@pytest.mark.parametrize("isolation", ISOLATIONS)
@pytest.mark.parametrize("fn", list(FAILS))
async def test_what_cannot_be_read_is_an_error(config: Config, module: str, fn: str,
                                               isolation: str) -> None:
    result = await _call(config, module, fn, isolation)
    assert result.is_error
    assert result.text_content.startswith(FAILS[fn]), result.text_content
