"""Resources, prompts and completions of a declared server, through `toolhost serve` and the
official ``mcp`` client, in both transports and both protocol eras."""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from mcp.client.client import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import PromptReference, ResourceTemplateReference

from tests.serve.conftest import HERE, http_server

pytestmark = pytest.mark.anyio
DATA = HERE / "content_data"

CONFIG = f"""\
toolhost: 1
servers:
  kb:
    tools:
      noop: {{python: "toolhost.demo:add"}}
    resources:
      runbook:
        file: {DATA}/runbook.md
        description: How we deploy
      handbook:
        directory: {DATA}/handbook
        uri: "handbook://kb"
      ticket:
        uri: "tickets://{{id}}"
        params: {{id: {{type: string, pattern: "^T-[0-9]+$"}}}}
        python: "content_tools:ticket"
        mime_type: application/json
        complete: {{id: [T-1, T-2, T-10]}}
      env-file:
        uri: "env://{{env}}/{{+path}}"
        params: {{env: {{type: string, enum: [production, staging]}}}}
        command: [printf, "%s:%s", "{{{{ env }}}}", "{{{{ path }}}}"]
    prompts:
      review:
        description: Review a diff
        arguments:
          diff: {{description: The diff, required: true}}
          tone: {{complete: [kind, blunt, brief]}}
        template: "Review in a {{{{ tone or 'kind' }}}} tone:\\n{{{{ diff }}}}"
      briefing:
        python: "content_tools:briefing"
      env-check:
        arguments:
          env: {{complete: "content_tools:environments"}}
        messages:
          - {{role: user, content: "Check {{{{ env }}}}"}}
          - {{role: assistant, content: "Checking {{{{ env }}}}."}}
permissions:
  allow:
    - tool: ReadMcpResourceTool
      when: {{server: kb}}
    - tool: GetMcpPromptTool
      when: {{server: kb}}
  deny:
    - tool: ReadMcpResourceTool
      when: {{uri: {{glob: "tickets://T-666"}}}}
      message: That ticket is sealed.
"""


@asynccontextmanager
async def connect(transport: str, mode: str, tmp_path: Path) -> AsyncIterator[Client]:
    config = tmp_path / "kb.yaml"
    config.write_text(CONFIG)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    argv = [sys.executable, "-m", "toolhost", "serve", str(config)]
    if transport == "stdio":
        async with Client(StdioServerParameters(command=argv[0], args=argv[1:], env=env),
                          mode=mode) as client:
            yield client
    else:
        with http_server([*argv, "--transport", "http", "--port", "0"],
                         tmp_path / "server.log", env=env) as url:
            async with Client(url, mode=mode) as client:
                yield client


@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_resources_prompts_and_completions(transport: str, mode: str,
                                                 tmp_path: Path) -> None:
    async with connect(transport, mode, tmp_path) as client:
        listed = await client.list_resources(cache_mode="bypass")
        uris = {str(r.uri): r for r in listed.resources}
        assert set(uris) == {"toolhost://kb/runbook", "handbook://kb/intro.txt",
                             "handbook://kb/logo.png", "handbook://kb/sub/deep.md"}
        assert uris["toolhost://kb/runbook"].mime_type == "text/markdown"
        assert uris["toolhost://kb/runbook"].description == "How we deploy"

        templates = await client.list_resource_templates(cache_mode="bypass")
        assert sorted(t.uri_template for t in templates.resource_templates) == [
            "env://{env}/{+path}", "tickets://{id}"]

        runbook = (await client.read_resource("toolhost://kb/runbook")).contents[0]
        assert runbook.text.startswith("# Deploy")  # type: ignore[union-attr]
        deep = (await client.read_resource("handbook://kb/sub/deep.md")).contents[0]
        assert deep.text == "deep\n"  # type: ignore[union-attr]
        logo = (await client.read_resource("handbook://kb/logo.png")).contents[0]
        assert logo.mime_type == "image/png"
        assert base64.b64decode(logo.blob).startswith(b"\x89PNG")  # type: ignore[union-attr]
        ticket = (await client.read_resource("tickets://T-7")).contents[0]
        assert ticket.mime_type == "application/json"
        assert '"title": "Ticket T-7"' in ticket.text  # type: ignore[union-attr]
        nested = (await client.read_resource("env://staging/a/b.txt")).contents[0]
        assert nested.text == "staging:a/b.txt"  # type: ignore[union-attr]

        for bad in ["handbook://kb/../outside.txt", "handbook://kb/%2E%2E/outside.txt",
                    "handbook://kb/.secret", "handbook://kb/sub/../../outside.txt",
                    "handbook://kb//etc/passwd", "nope://x", "handbook://kb/missing"]:
            with pytest.raises(MCPError) as info:
                await client.read_resource(bad)
            assert info.value.code == (-32002 if mode == "legacy" else -32602), bad
        with pytest.raises(MCPError) as invalid:
            await client.read_resource("tickets://DROP")  # the pattern refuses it
        assert "does not match" in str(invalid.value)
        with pytest.raises(MCPError) as sealed:
            await client.read_resource("tickets://T-666")  # a rule on the read
        assert "That ticket is sealed." in str(sealed.value)

        prompts = await client.list_prompts(cache_mode="bypass")
        by_name = {p.name: p for p in prompts.prompts}
        assert set(by_name) == {"review", "briefing", "env-check"}
        assert [(a.name, a.required) for a in by_name["review"].arguments or []] == [
            ("diff", True), ("tone", False)]
        assert [(a.name, a.required) for a in by_name["briefing"].arguments or []] == [
            ("topic", True), ("audience", False)]
        review = await client.get_prompt("review", {"diff": "+x", "tone": "blunt"})
        assert review.messages[0].content.text == "Review in a blunt tone:\n+x"  # type: ignore[union-attr]
        briefing = await client.get_prompt("briefing", {"topic": "the outage"})
        assert [m.role for m in briefing.messages] == ["user", "assistant"]
        assert briefing.messages[0].content.text == "Brief engineers on the outage."  # type: ignore[union-attr]
        with pytest.raises(MCPError) as missing:
            await client.get_prompt("review", {})
        assert missing.value.code == -32602 and "diff" in str(missing.value)
        with pytest.raises(MCPError) as unknown:
            await client.get_prompt("review", {"diff": "x", "colour": "red"})
        assert unknown.value.code == -32602 and "colour" in str(unknown.value)

        tone = await client.complete(PromptReference(type="ref/prompt", name="review"),
                                     {"name": "tone", "value": "b"})
        assert tone.completion.values == ["blunt", "brief"]
        envs = await client.complete(PromptReference(type="ref/prompt", name="env-check"),
                                     {"name": "env", "value": "pr"})
        assert envs.completion.values == ["production", "preview"]
        ids = await client.complete(ResourceTemplateReference(type="ref/resource",
                                                              uri="tickets://{id}"),
                                    {"name": "id", "value": "T-1"})
        assert ids.completion.values == ["T-1", "T-10"]
        from_enum = await client.complete(
            ResourceTemplateReference(type="ref/resource", uri="env://{env}/{+path}"),
            {"name": "env", "value": "s"})
        assert from_enum.completion.values == ["staging"]
