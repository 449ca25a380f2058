"""``SdkHost.options``: fields that would let the CLI decide permissions by itself are refused
with one line saying why and what to do; the rest pass through, in permission mode default."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from claude_agent_sdk import ClaudeAgentOptions

from tests.serve.test_serve_command import DEMO
from toolhost.errors import ToolhostError
from toolhost.runner.cli_settings import settings_json
from toolhost.sdk import SdkHost, load
from toolhost.sdk_options import as_cli_args, refused

pytestmark = pytest.mark.anyio


@pytest.fixture
async def host() -> AsyncIterator[SdkHost]:
    async with load(DEMO) as loaded:
        yield loaded


@pytest.mark.parametrize("kwargs,says", [
    ({"permission_mode": "bypassPermissions"}, "permission_mode='bypassPermissions'"),
    ({"permission_mode": "acceptEdits"}, "allowed: default, dontAsk, manual, plan"),
    ({"permission_mode": "auto"}, "leave it out"),
    ({"permission_mode": ""}, "permission_mode=''"),
    ({"allowed_tools": ["mcp__calc__add"]}, "write allow rules in the config"),
    ({"allowed_tools": ["mcp__calc"]}, "--allowedTools is not allowed"),
    ({"allowed_tools": ["Bash"]}, "without asking toolhost"),
    ({"allowed_tools": "mcp__*"}, "allowed_tools="),
    ({"settings": '{"permissions": {"allow": ["mcp__calc__add"]}}'}, "--settings"),
    ({"settings": "/tmp/settings.json"}, "settings="),
    ({"permission_prompt_tool_name": "mcp__calc__add"}, "--permission-prompt-tool"),
    ({"extra_args": {"dangerously-skip-permissions": None}}, "turns every permission"),
    ({"extra_args": {"permission-mode": "bypassPermissions"}}, "--permission-mode"),
    ({"extra_args": {"settings": "{}"}}, "--settings"),
    ({"extra_args": {"allowedTools": "mcp__calc__add"}}, "--allowedTools"),
    ({"extra_args": {"permission-mode=bypassPermissions": None}}, "--permission-mode"),
    ({"extra_args": ["--settings"]}, "extra_args must be a mapping"),
    ({"can_use_tool": None}, "can_use_tool is this host's own"),
    ({"add_dirs": ["/etc"]}, "--add-dir is not allowed"),
    ({"add_dirs": ["/etc", "/root"]}, "run the session in the directory"),
    ({"plugins": [{"type": "local", "path": "/tmp/p"}]}, "--plugin-dir is not allowed"),
    ({"setting_sources": ["user", "project"]}, "--setting-sources"),
    ({"setting_sources": ["local"]}, "pass [] to load no settings files"),
    ({"skills": "all"}, "skills become tools allowed"),
    ({"skills": ["deploy"]}, "--allowedTools"),
    ({"agents": {"a": {"description": "x", "prompt": "y"}}}, "its own permission mode"),
])
async def test_what_would_let_the_cli_decide_alone_is_refused(
        host: SdkHost, kwargs: dict[str, Any], says: str) -> None:
    with pytest.raises(ToolhostError) as raised:
        host.options(**kwargs)
    message = str(raised.value)
    assert says in message and "\n" not in message, message


async def test_what_keeps_the_cli_asking_passes_through(host: SdkHost) -> None:
    options = host.options(max_turns=2)
    assert isinstance(options, ClaudeAgentOptions)
    assert options.permission_mode == "default"  # not a settings file's defaultMode
    for mode in ("default", "plan", "dontAsk"):
        assert host.options(permission_mode=mode).permission_mode == mode
    assert host.options(permission_mode=None).permission_mode == "default"
    same = host.options(can_use_tool=host.can_use_tool, allowed_tools=[],
                        extra_args={"verbose": None, "debug-to-stderr": None},
                        disallowed_tools=[], setting_sources=[])
    assert same.can_use_tool == host.can_use_tool and same.allowed_tools == []


async def test_options_make_the_cli_ask_about_every_tool(host: SdkHost) -> None:
    # the CLI would run reads in its working directory unasked (red team runner2 F1)
    expected = json.loads(settings_json(host.mcp_servers))
    assert "*" in expected["permissions"]["ask"]
    for options in (host.options(), host.options(settings=None),
                    host.options(sandbox={"enabled": False})):
        assert json.loads(options.settings) == expected
    assert host.settings == options.settings


def test_as_cli_args_is_what_the_sdk_passes() -> None:
    assert as_cli_args("permission_mode", "plan") == ["--permission-mode", "plan"]
    assert as_cli_args("allowed_tools", ["a", "b"]) == ["--allowedTools", "a,b"]
    assert as_cli_args("allowed_tools", []) == []
    assert as_cli_args("extra_args", {"x": None, "y": "-1"}) == ["--x", "--y=-1"]
    assert as_cli_args("max_turns", 3) == []
    assert refused({}, print) is None


async def test_the_cli_starts_and_stays_in_the_folder_the_rules_judge(
        host: SdkHost, tmp_path: Any) -> None:
    start = host.host.policy.cwd
    options = host.options(env={"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "0", "A": "b"})
    assert options.cwd == start
    assert options.env == {"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "1", "A": "b"}
    assert host.options(cwd=start).cwd == start
    with pytest.raises(ToolhostError) as raised:  # one host, one folder
        host.options(cwd=str(tmp_path))
    assert "not the folder this host's sessions run in" in str(raised.value)
    assert "\n" not in str(raised.value)


async def test_commands_are_read_in_the_cwd_the_cli_is_given(tmp_path: Any) -> None:
    # the policy reads repositories, patches and relative paths where Bash runs
    async with load(DEMO) as sdk:
        assert sdk.options(cwd=str(tmp_path)).cwd == str(tmp_path)
        assert sdk.host.policy.cwd == str(tmp_path)
