"""A list or object default is the config's, call after call: a tool that changes the value it
was given (appends to the list, fills the object) changed the default of every later call,
and so the arguments another client's call ran with."""

from __future__ import annotations

import copy
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
import json

def _spoil(v):
    if isinstance(v, list):
        for item in v:
            _spoil(item)
        v.append("spoiled")
    elif isinstance(v, dict):
        for item in list(v.values()):
            _spoil(item)
        v["spoiled"] = True

def sync(v: object) -> str:
    seen = json.dumps(v, sort_keys=True)
    _spoil(v)
    return seen

async def async_(v: object) -> str:
    seen = json.dumps(v, sort_keys=True)
    _spoil(v)
    return seen
'''

DEFAULTS: dict[str, Any] = {
    "list": [7],
    "empty list": [],
    "object": {"a": 1},
    "empty object": {},
    "list of objects": [{"a": [1]}, {"b": {"c": []}}],
    "object of lists": {"a": [1, [2]], "b": {"c": [3]}},
}


@pytest.fixture
def module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    name = f"th_defaults_{abs(hash(tmp_path)) % 10**8}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


@pytest.mark.anyio
@pytest.mark.parametrize("fn", ["sync", "async_"])
@pytest.mark.parametrize("shape", list(DEFAULTS))
async def test_a_tool_cannot_change_a_default(config: Config, module: str, fn: str,
                                              shape: str) -> None:
    default = DEFAULTS[shape]
    schema: dict[str, Any] = {"type": "object", "default": copy.deepcopy(default)}
    if isinstance(default, list):
        schema = {"type": "array", "items": {}, "default": copy.deepcopy(default)}
    compiled = compile_tools(config({"t": {
        "kind": "python", "options": {"function": f"{module}:{fn}", "allow_untyped": True},
        "params": {"v": schema}}}))
    tool = compiled.tool("demo", "t")
    try:
        seen = {(await tool.call({}, CallContext(tool="t"))).text_content for _ in range(3)}
        assert len(seen) == 1, seen
        assert tool.input_schema["properties"]["v"]["default"] == default
        assert tool.defaults["v"] == default
    finally:
        await compiled.aclose()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
