"""An imported server's resources, resource templates and prompts pass through `toolhost
serve` to the official client, behind the resource rules, and several served servers keep
prompt names apart."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.passthrough import list_content
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, UPSTREAM

pytestmark = pytest.mark.anyio


def config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "gateway.yaml"
    path.write_text(f"""\
toolhost: 1
servers:
  notes:
    mcp: {{command: [{sys.executable}, {UPSTREAM}, stdio], env: {{UPSTREAM_CONTENT: "1"}}}}
{extra}permissions:
  default: allow
  deny:
    - tool: ReadMcpResourceTool
      when: {{uri: {{glob: "notes://secret"}}}}
      message: Sealed.
""")
    return path


def serve(path: Path, *flags: str) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, env=dict(os.environ),
                                 args=["-m", "toolhost", "serve", str(path), *flags])


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_resources_templates_and_prompts_pass_through(tmp_path: Path, mode: str) -> None:
    async with Client(serve(config(tmp_path)), mode=mode) as client:
        listed = await client.list_resources(cache_mode="bypass")
        by_uri = {str(r.uri): r for r in listed.resources}
        assert sorted(by_uri) == ["notes://readme"]  # what a deny seals is not listed either
        assert by_uri["notes://readme"].description == "Read me first"
        read = await client.read_resource("notes://readme")
        assert read.contents[0].text == "# Upstream notes"
        templates = await client.list_resource_templates(cache_mode="bypass")
        assert [t.uri_template for t in templates.resource_templates] == \
            ["notes://item/{item_id}"]
        assert (await client.read_resource("notes://item/42")).contents[0].text == "note 42"
        with pytest.raises(MCPError, match="Sealed"):
            await client.read_resource("notes://secret")  # the rules stand in front
        with pytest.raises(MCPError):
            await client.read_resource("notes://nowhere")
        prompts = await client.list_prompts(cache_mode="bypass")
        [prompt] = prompts.prompts
        assert prompt.name == "summarize" and prompt.description == "Summarize a topic"
        got = await client.get_prompt("summarize", {"topic": "MCP"})
        assert got.messages[0].content.text == "Summarize MCP in a short way."
        with pytest.raises(MCPError):
            await client.get_prompt("summarize", {})  # the upstream refuses: topic is needed


async def test_several_servers_keep_prompt_names_apart(tmp_path: Path) -> None:
    extra = """\
  local:
    tools:
      add: {python: "toolhost.demo:add"}
    prompts:
      hello: {template: "Say hello"}
"""
    async with Client(serve(config(tmp_path, extra), "--all"), mode="legacy") as client:
        prompts = await client.list_prompts(cache_mode="bypass")
        assert sorted(p.name for p in prompts.prompts) == ["local__hello", "notes__summarize"]
        got = await client.get_prompt("notes__summarize", {"topic": "x", "style": "long"})
        assert got.messages[0].content.text == "Summarize x in a long way."


def test_an_upstream_error_code_is_kept_only_when_it_is_an_integer() -> None:
    # what an upstream sent decides "not found": anything but an int counts as no code
    from toolhost.gateway.client import UpstreamError

    assert UpstreamError("x", -32002).code == -32002
    for odd in (None, True, "-32002", [-32002], {"code": 1}, 1.5):
        assert UpstreamError("x", odd).code is None


@pytest.mark.parametrize("flags", [(), ("--all",)])
async def test_an_upstream_prompt_meets_the_prompt_rules(tmp_path: Path,
                                                         flags: tuple[str, ...]) -> None:
    extra = """\
  local:
    tools:
      add: {python: "toolhost.demo:add"}
""" if flags else ""
    path = config(tmp_path, extra)
    path.write_text(path.read_text() + """\
    - tool: GetMcpPromptTool
      when: {server: notes, name: summarize, arguments.style: long}
      message: No long summaries.
""")
    async with Client(serve(path, *flags), mode="legacy") as client:
        listed = await client.list_prompts(cache_mode="bypass")  # the upstream is in
        [name] = [p.name for p in listed.prompts]  # only notes has prompts: not prefixed
        with pytest.raises(MCPError, match="No long summaries"):
            await client.get_prompt(name, {"topic": "x", "style": "long"})
        got = await client.get_prompt(name, {"topic": "x", "style": "short"})
        assert got.messages[0].content.text == "Summarize x in a short way."


def test_an_upstream_claim_on_toolhost_uris_is_left_out_for_every_door(
        caplog: pytest.LogCaptureFixture) -> None:
    # the claim was dropped only where servers are merged (serve): under `toolhost run` the
    # CLI listed the upstream's toolhost://kb/runbook, and every read of it was "not found"
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)), connect_timeout=120.0,
                        env={"HOSTILE_MODE": "own_scheme"})
    connection = UpstreamConnection(spec, "h")
    try:
        with caplog.at_level(logging.WARNING, logger="toolhost.gateway"):
            content = list_content(connection, "h")
    finally:
        connection.close()
    uris = [e["uri"] for r in content.resources if not r.is_template
            for e in getattr(r, "entries", ())]
    templates = [r.descriptor()["uriTemplate"] for r in content.resources if r.is_template]
    assert (uris, templates) == (["x://r"], ["x://t/{a}"])
    assert "its resource toolhost://kb/runbook is left out" in caplog.text
    assert "its resource template toolhost://kb/{id} is left out" in caplog.text
