"""Headers a config or an argument may not write: framing and hop-by-hop headers (a second
``Host`` re-targets the request behind a shared front, a second length desynchronises the
connection), and a server's credential replaced by an argument."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from toolhost.backends.base import CallContext
from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.config.model import HostConfig, ServerDefaults
from toolhost.errors import CompileError, ConfigError

Config = Callable[..., HostConfig]
FRAMING = ["Host", "host", "Content-Length", "Transfer-Encoding", "CONNECTION", "Keep-Alive",
           "TE", "Trailer", "Upgrade", "Expect", "Proxy-Authorization", "Proxy-Connection",
           "proxy-anything"]


def http(headers: dict[str, str], params: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"kind": "http", "options": {"url": "echo", "headers": headers},
            "params": {p: {"type": "string"} for p in params}}


async def compile_problem(cfg: HostConfig) -> str:
    with pytest.raises(CompileError) as caught:
        async with compile_tools(cfg):
            pass
    assert len(caught.value.problems) == 1
    return str(caught.value.problems[0])


@pytest.mark.anyio
@pytest.mark.parametrize("name", FRAMING)
@pytest.mark.parametrize("value", ["evil.example", "{{ v }}"])
async def test_a_tool_never_writes_a_framing_header(config: Config, server: Any, name: str,
                                                    value: str) -> None:
    cfg = config({"get": http({name: value}, ("v",))},
                 defaults=ServerDefaults(base_url=f"{server.url}/api/"))
    problem = await compile_problem(cfg)
    assert f"headers.{name}" in problem and "framing or hop-by-hop" in problem
    assert server.seen == []


@pytest.mark.anyio
@pytest.mark.parametrize(("defaults", "header"), [
    ({"headers": {"X-Token": "s3cret-token"}}, "x-token"),
    ({"auth": {"type": "bearer", "token": "s3cret-token"}}, "Authorization"),
    ({"auth": {"type": "basic", "username": "u", "password": "p"}}, "authorization"),
    ({"auth": {"type": "header", "name": "X-Api-Key", "value": "k"}}, "X-API-KEY"),
])
async def test_an_argument_never_replaces_a_server_header(
        config: Config, server: Any, defaults: dict[str, Any], header: str) -> None:
    base = {"base_url": f"{server.url}/api/", **defaults}
    for value in ("{{ v }}", "Bearer {{ v }}", "{% if v %}x{% endif %}"):
        cfg = config({"get": http({header: value}, ("v",))}, defaults=ServerDefaults(**base))
        problem = await compile_problem(cfg)
        assert "an argument would replace the server's credential" in problem, problem
    # written literally in the config, it is the config's own choice
    cfg = config({"get": http({header: "literal-value"})}, defaults=ServerDefaults(**base))
    async with compile_tools(cfg) as compiled:
        result = await compiled.tool("demo", "get").call({}, CallContext())
    assert not result.is_error, result
    basic = defaults.get("auth", {}).get("type") == "basic"  # httpx's auth writes its own
    assert server.seen[-1].headers[header.lower()] == ("Basic dTpw" if basic else
                                                       "literal-value")


@pytest.mark.anyio
async def test_one_header_written_twice_by_case_is_refused(config: Config,
                                                           server: Any) -> None:
    cfg = config({"get": http({"X-Note": "a", "x-note": "{{ v }}"}, ("v",))},
                 defaults=ServerDefaults(base_url=f"{server.url}/api/"))
    assert "case-insensitive" in await compile_problem(cfg)


@pytest.mark.anyio
async def test_an_argument_value_is_always_one_header(config: Config, server: Any) -> None:
    cfg = config({"get": http({"X-Note": "{{ v }}"}, ("v",))},
                 defaults=ServerDefaults(base_url=f"{server.url}/api/"))
    async with compile_tools(cfg) as compiled:
        tool = compiled.tool("demo", "get")
        for value in ("a\r\nHost: evil.example", "a\nX-Evil: 1", "a\rb", "a\0b",
                      "a\x85b", "a\u2028b"):
            result = await tool.call({"v": value}, CallContext())
            assert result.is_error and "Refused to send the request" in result.text_content
        assert server.seen == []
        result = await tool.call({"v": "a, b"}, CallContext())
        assert not result.is_error and server.seen[-1].headers["x-note"] == "a, b"


@pytest.mark.parametrize("block", [
    "headers: {Host: evil.example}",
    "headers: {transfer-encoding: chunked}",
    "headers: {Proxy-Authorization: x}",
    "auth: {type: header, name: Content-Length, value: qqqqqqqq}",
    "mcp: {url: 'http://127.0.0.1:1/mcp', headers: {Host: evil.example}}",
])
def test_a_server_block_never_writes_a_framing_header(tmp_path: Path, block: str) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\nservers:\n  api:\n    base_url: http://127.0.0.1:1/\n"
                      f"    {block}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(config, environ={}, layers=False)
    found = [str(p) for p in caught.value.problems]
    assert any("toolhost.yaml:5:" in p and "framing or hop-by-hop" in p for p in found), found


FORBIDDEN = ["Host", "Content-Length", "Transfer-Encoding", "Proxy-Authorization",
             "X-Forwarded-Host", "X-Forwarded-For", "Forwarded", "Cookie", "Authorization",
             "X-Original-URL", "X-Team", "X-Api-Key"]


def test_every_spelling_of_a_forbidden_header_is_refused() -> None:
    # 2,000 seeded spellings (was 400 hypothesis draws, whose drawing cost 4-14 s on CI)
    import random

    from toolhost.backends.http_headers import model_header_reason

    rnd = random.Random(20261127)
    for _ in range(2000):
        name = rnd.choice(FORBIDDEN)
        spelt = ""
        for char in name:
            char = rnd.choice([char.lower(), char.upper()])
            if char == "-":
                char = rnd.choice(["-", "_", "\uff3f", "\uff0d"])
            elif rnd.random() < 0.5:  # a full-width letter
                char = chr(ord(char) + 0xFEE0) if char.isascii() and char.isalpha() else char
            spelt += char + rnd.choice(["", "", "", " ", "\t", "\u200b"])
        assert model_header_reason(spelt, frozenset({"x-team", "x-api-key"})) is not None, spelt
