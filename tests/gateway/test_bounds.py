"""Everything an upstream writes for the model is bounded: a call's embedded resources (text
and blob), resource links and ``_meta``; the descriptions and titles of its tools, parameters,
resources, templates and prompts; a listed tool too big even then is left out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from toolhost.gateway.bounds import (
    MAX_DESCRIPTION,
    MAX_PARAM_DESCRIPTION,
    MAX_TITLE,
    bound_entry,
)
from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.passthrough import list_content
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, hostile_config

NOTE = 40  # "…N more characters"


def run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *args], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})


def _bounded(mode: str, printed: str) -> None:
    assert len(printed) < 45_000, (mode, len(printed))
    answer = json.loads(printed)
    assert all("_meta" not in b for b in answer["content"]), mode
    if mode.startswith("embed"):
        assert "[toolhost: output cut:" in printed, mode


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["embed_text", "embed_blob", "embed_mixed", "link", "meta"])
async def test_a_calls_answer_is_bounded_whatever_its_blocks(tmp_path: Path, mode: str) -> None:
    """In-process (the compiled tool's call shapes the answer, as every door serves it), at
    two sizes; one upstream start each (the raw JSON-RPC upstream)."""
    from toolhost.backends.base import CallContext
    from toolhost.compile import compile_tools
    from toolhost.config import load_config

    config = hostile_config(tmp_path)
    for size in ("50000", "2000000"):
        loaded = load_config(config, environ={**os.environ, "HOSTILE_MODE": mode,
                                              "HOSTILE_N": size}, layers=False)
        async with compile_tools(loaded) as compiled:
            result = await compiled.tool("h", "echo").call({"text": "x"}, CallContext())
        _bounded(mode, json.dumps(result.to_mcp(), ensure_ascii=False))


def test_the_printed_answer_is_bounded(tmp_path: Path) -> None:
    """The same through ``toolhost call --raw`` (a real process), for one mixed answer."""
    done = run("call", "--raw", str(hostile_config(tmp_path)), "h.echo", "text=x",
               HOSTILE_MODE="embed_mixed", HOSTILE_N="2000000")
    assert "Traceback" not in done.stderr
    _bounded("embed_mixed", done.stdout)


def _longest(value: Any, key: str) -> int:
    """The longest string under ``key`` anywhere in ``value``."""
    if isinstance(value, dict):
        own = len(value[key]) if isinstance(value.get(key), str) else 0
        return max([own, *(_longest(v, key) for v in value.values())])
    if isinstance(value, list):
        return max([0, *(_longest(v, key) for v in value)])
    return 0


@pytest.mark.parametrize("size", ["3000", "1000000"])
def test_listed_texts_are_cut_and_a_huge_tool_left_out(tmp_path: Path, size: str) -> None:
    done = run("tools", "--json", str(hostile_config(tmp_path)), HOSTILE_MODE="bigdesc",
               HOSTILE_N=size)
    assert done.returncode == 0, done.stderr[-2000:]
    servers = json.loads(done.stdout)["servers"]
    (h,) = [s for s in servers if s["name"] == "h"]
    tools = {t["name"]: t for t in h["tools"]}
    big = tools["big"]
    assert len(big["description"]) <= MAX_DESCRIPTION + NOTE
    assert big["description"].endswith("more characters")
    assert _longest(big, "title") <= MAX_TITLE + NOTE
    assert _longest(big["inputSchema"], "description") <= MAX_PARAM_DESCRIPTION + NOTE
    assert len(json.dumps(big)) < 6000
    if int(size) > 100_000:
        assert "huge" not in tools
        assert "h: upstream tool 'huge' is left out: its definition is" in done.stderr


@pytest.mark.parametrize("size", [3000, 70000])
def test_listed_resources_templates_and_prompts_are_cut(size: int) -> None:
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)),
                        env={"HOSTILE_MODE": "bigdesc", "HOSTILE_N": str(size)})
    connection = UpstreamConnection(spec, "h")
    try:
        content = list_content(connection, "h")
    finally:
        connection.close()
    listed = [e for r in content.resources for e in r.listed()]
    templates = [r.descriptor() for r in content.resources if r.is_template]
    prompts = [p.descriptor() for p in content.prompts.values()]
    assert listed and templates and prompts
    for entry in [*listed, *templates, *prompts]:
        assert _longest(entry, "description") <= MAX_DESCRIPTION + NOTE, entry.keys()
        assert _longest(entry, "title") <= MAX_TITLE + NOTE
    assert _longest(prompts[0]["arguments"], "description") <= MAX_PARAM_DESCRIPTION + NOTE


@pytest.mark.parametrize("entry", [
    {"name": "t", "description": "d" * 10_000, "inputSchema": {"type": "object", "properties": {
        "a": {"description": "x" * 9000, "items": {"description": "y" * 9000},
              "anyOf": [{"title": "z" * 9000}]}},
        "$defs": {"D": {"description": "w" * 9000}}}},
    {"uri": "x://r", "name": "n" * 9000, "title": "t" * 9000, "mimeType": "m" * 9000},
    {"name": "p", "arguments": [{"name": "a", "description": "q" * 9000, "title": "r" * 900}]},
])
def test_bound_entry_cuts_every_text(entry: dict[str, Any]) -> None:
    bounded = bound_entry(entry)
    assert len(json.dumps(bounded)) < 6000
    assert bounded.get("name") == entry["name"] or "uri" in entry  # a tool's, prompt's: kept
