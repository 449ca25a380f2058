"""A URL's port is checked at load, wherever the config writes a URL (a server's base_url, an
http tool's url, an imported MCP server's url, an OpenAPI document's server): an impossible
port is one located problem, never an unexplained error at every call."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.config.url_secrets import port_problem
from toolhost.errors import CompileError, ConfigError

BAD = ["99999", "65536", "0", "-1", "abc", "+80", " 80", "8O", "٨٠", "1e3", "0x50",
       "100000000000000000000"]
GOOD = ["1", "80", "080", "65535", ""]


@pytest.mark.parametrize("port", BAD)
@pytest.mark.parametrize("host", ["127.0.0.1", "bot:pw@h.example", "[::1]", "u@[::1]"])
def test_an_impossible_port_is_named(port: str, host: str) -> None:
    problem = port_problem(f"http://{host}:{port}/x")
    assert problem is not None and ("out of range" in problem or "not a number" in problem)
    assert "pw" not in problem and "bot" not in problem


@pytest.mark.parametrize("url", [*(f"https://h:{p}/" for p in GOOD), "http://h/", "http://[::1]/",
                                 "http://u:p:q@h/", "relative/path", "http://h:{port}/"])
def test_a_possible_port_or_none_passes(url: str) -> None:
    assert port_problem(url) is None


@given(st.integers(min_value=-10**6, max_value=10**6))
def test_the_range_is_one_to_65535(port: int) -> None:
    assert (port_problem(f"http://h:{port}/") is None) == (1 <= port <= 65535)


def _problems(tmp_path: Path, servers: str, **env: str) -> list[str]:
    config = tmp_path / "t.yaml"
    config.write_text(f"toolhost: 1\nservers:\n{servers}")
    with pytest.raises((ConfigError, CompileError)) as caught:
        compile_tools(load_config(config, environ={"TOOLHOST_CACHE": str(tmp_path), **env},
                                  layers=False))
    return [str(p) for p in caught.value.problems]


@pytest.mark.parametrize("port", ["99999", "0", "-1", "x"])
@pytest.mark.parametrize(("servers", "key"), [
    ("  h:\n    base_url: 'http://bot:${BOT_PW}@127.0.0.1:PORT/'\n"
     "    tools:\n      e: {http: {url: echo}}\n", "servers.h.base_url"),
    ("  h:\n    tools:\n      e: {http: {url: 'http://127.0.0.1:PORT/{x}'}}\n",
     "servers.h.tools.e.http.url"),
    ("  m:\n    mcp: {url: 'http://127.0.0.1:PORT/mcp'}\n", "servers.m.mcp.url"),
])
def test_every_url_of_the_config_is_a_located_problem(tmp_path: Path, servers: str, key: str,
                                                      port: str) -> None:
    problems = _problems(tmp_path, servers.replace("PORT", port), BOT_PW="pwVALUE77")
    assert len(problems) == 1, problems
    assert "t.yaml:" in problems[0] and f"{key}: " in problems[0]
    assert "pwVALUE77" not in problems[0]


def test_an_openapi_server_url_is_a_located_problem(tmp_path: Path) -> None:
    (tmp_path / "api.yaml").write_text(
        "openapi: 3.0.3\ninfo: {title: t, version: '1'}\n"
        "servers: [{url: 'http://127.0.0.1:99999/v1'}]\npaths: {}\n")
    problems = _problems(tmp_path, "  a:\n    openapi: {spec: api.yaml}\n")
    assert len(problems) == 1 and "api.yaml:" in problems[0]
    assert "servers[0].url: port 99999 is out of range" in problems[0]
