"""The CLI's command line and environment (protocol.md §1)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from toolhost.backends.base import CallContext
from toolhost.compile.tool import CompiledTool
from toolhost.config.model import RunConfig
from toolhost.results import ToolResult
from toolhost.runner.command import DEFAULT_MAX_TURNS, RunOptions, build_command, mcp_config


async def _noop(arguments: Mapping[str, Any], ctx: CallContext) -> ToolResult:
    return ToolResult.text("")


def _tool(name: str, timeout: float | None) -> CompiledTool:
    schema: dict[str, Any] = {"type": "object"}
    return CompiledTool(name=name, server="s", description="", input_schema=schema,
                        validator=Draft202012Validator(schema), invoke=_noop, timeout=timeout)


def _flag(argv: tuple[str, ...], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_sdk_servers_have_type_and_name_and_a_timeout_after_the_slowest_tool() -> None:
    config = mcp_config({"fast": [_tool("a", 2), _tool("b", 30.5)],
                         "open": [_tool("c", None), _tool("d", 1)]},
                        {"fs": {"type": "stdio", "command": "npx", "args": ["x"]}})
    assert config == {"mcpServers": {
        "fast": {"type": "sdk", "name": "fast", "timeout": 35_500},
        "open": {"type": "sdk", "name": "open"},  # a tool without a timeout: CLI default
        "fs": {"type": "stdio", "command": "npx", "args": ["x"]}}}


def test_argv_flags_and_environment() -> None:
    options = RunOptions.from_config(
        RunConfig(model="m-config", append_system_prompt="be brief", max_turns=3,
                  cli_args=("--a",), env={"FROM_CONFIG": "1", "SHARED": "config"}, cwd="/w"),
        model="m-cli", cli_args=("--b", "x"), max_turns=None)
    cmd = build_command("/bin/claude", {"s": [_tool("t", None)]},
                        disallowed_tools=["mcp__s__t", "mcp__x"], options=options,
                        environ={"PATH": "/bin", "SHARED": "env", "ANTHROPIC_API_KEY": "k",
                                 "HTTPS_PROXY": "p"},
                        extra_env={"EXTRA": "1"}, drop_env=["HTTPS_PROXY"])
    argv = cmd.argv
    assert argv[:8] == ("/bin/claude", "--output-format", "stream-json", "--input-format",
                        "stream-json", "--verbose", "--permission-prompt-tool", "stdio")
    assert json.loads(_flag(argv, "--mcp-config")) == {
        "mcpServers": {"s": {"type": "sdk", "name": "s"}}}
    assert _flag(argv, "--model") == "m-cli"
    assert _flag(argv, "--max-turns") == "3"
    assert _flag(argv, "--append-system-prompt") == "be brief"
    assert "--system-prompt" not in argv
    assert _flag(argv, "--disallowedTools") == "mcp__s__t,mcp__x"
    assert argv[-3:] == ("--a", "--b", "x")
    assert cmd.cwd == "/w"
    assert cmd.env == {"PATH": "/bin", "SHARED": "config", "ANTHROPIC_API_KEY": "k",
                       "FROM_CONFIG": "1", "EXTRA": "1", "CLAUDE_CODE_ENTRYPOINT": "sdk-py",
                       "CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "1"}


def test_no_optional_flags_by_default() -> None:
    cmd = build_command("claude", {}, environ={})
    assert len(cmd.argv) == 14  # ... and --settings and --max-turns, which are never left out
    assert json.loads(cmd.argv[-5]) == {"mcpServers": {}}
    assert cmd.argv[-4:-2] == ("--max-turns", str(DEFAULT_MAX_TURNS))
    assert cmd.argv[-2] == "--settings"


@pytest.mark.parametrize(("max_turns", "cli_args", "wanted"), [
    (None, (), [str(DEFAULT_MAX_TURNS)]),  # a model that never stops calling tools is stopped
    (7, (), ["7"]),
    (None, ("--max-turns", "500"), ["500"]),  # given after `--`: that one, alone
    (None, ("--max-turns=500",), []),
])
def test_every_run_has_a_turn_limit(max_turns: int | None, cli_args: tuple[str, ...],
                                    wanted: list[str]) -> None:
    # the CLI has no limit of its own: a looping model ran (and cost) until someone noticed
    argv = build_command("claude", {}, environ={}, options=RunOptions(
        max_turns=max_turns, cli_args=cli_args)).argv
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--max-turns"] == wanted
    assert sum(a.startswith("--max-turns") for a in argv) == 1
