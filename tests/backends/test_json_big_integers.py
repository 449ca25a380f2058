"""JSON holding an integer past Python's conversion limit (4,300 digits) is valid JSON that
toolhost does not read: the error says so, for an HTTP response and a command's output (it
read "not valid JSON (Exceeds the limit (4300 digits) for integer string conversion ...)")."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.model import HostConfig

from .conftest import Server

Config = Callable[..., HostConfig]

BODIES = {
    "top": "1" * 5000,
    "negative": "-" + "9" * 4301,
    "nested": '{"a": [1, ' + "2" * 6000 + "]}",
    "exponent-free": '{"n": 1' + "0" * 4400 + "}",
}
SAID = "it holds an integer of more than 4,300 digits, which toolhost does not read"


@pytest.mark.anyio
@pytest.mark.parametrize("shape", list(BODIES))
async def test_an_http_response(config: Config, server: Server, shape: str) -> None:
    server.raw["big"] = (BODIES[shape].encode(), {"Content-Type": "application/json"})
    compiled = compile_tools(config({"t": {"kind": "http", "options": {
        "url": f"{server.url}/api/raw/big"}}}))
    try:
        result = await compiled.tool("demo", "t").call({}, CallContext(tool="t"))
    finally:
        await compiled.aclose()
    assert result.is_error
    assert SAID in result.text_content and "Exceeds the limit" not in result.text_content


@pytest.mark.anyio
@pytest.mark.parametrize("shape", list(BODIES))
async def test_a_commands_output(config: Config, shape: str) -> None:
    compiled = compile_tools(config({"t": {"kind": "command", "options": {
        "argv": ["printf", "%s", BODIES[shape]], "stdout": "json"}}}))
    try:
        result = await compiled.tool("demo", "t").call({}, CallContext(tool="t"))
    finally:
        await compiled.aclose()
    assert result.is_error
    assert SAID in result.text_content and "Exceeds the limit" not in result.text_content
