"""The settings toolhost gives the CLI: a whole-tool ask rule for every tool (the e2e proof
with the real CLI: tests/e2e/test_run_asks_everything.py)."""

from __future__ import annotations

import json

import pytest

from toolhost.config.cli_args import weakening
from toolhost.permissions.authoring.lint import BUILTIN_TOOLS
from toolhost.runner.cli_settings import ASKED_BUILTINS, ask_everything, settings_json
from toolhost.runner.command import RunOptions, build_command

# Tools that only touch the CLI's own session state; every other built-in must be named.
BOOKKEEPING = {"AskUserQuestion", "ExitPlanMode", "TodoWrite", "EnterPlanMode", "CronCreate",
               "CronDelete", "CronList", "ListAgents", "ReportFindings", "ScheduleWakeup"}


def test_every_tool_and_every_server_is_asked_about() -> None:
    asks = ask_everything(["s", "fs"])["permissions"]["ask"]
    assert asks[0] == "*"
    assert set(asks) == {"*", *ASKED_BUILTINS, "mcp__s", "mcp__fs"}
    assert len(asks) == len(set(asks))
    assert set(ask_everything()["permissions"]) == {"ask"}  # nothing allowed, no mode


# Names toolhost's rules give what the CLI has no tool for (a prompts/get is decided by
# toolhost itself, never by the CLI's settings)
TOOLHOST_OWN = {"GetMcpPromptTool"}


@pytest.mark.parametrize("tool", sorted(BUILTIN_TOOLS - BOOKKEEPING - TOOLHOST_OWN))
def test_every_acting_built_in_is_named_for_a_cli_without_the_star_rule(tool: str) -> None:
    assert tool in ASKED_BUILTINS


def test_the_settings_reach_the_cli_once_before_the_users_arguments() -> None:
    options = RunOptions(cli_args=("--add-dir", "/x"))
    argv = build_command("claude", {"s": []}, external={"fs": {"type": "stdio"}},
                         options=options, environ={}).argv
    assert argv.count("--settings") == 1
    at = argv.index("--settings")
    assert json.loads(argv[at + 1]) == json.loads(settings_json(["s", "fs"], hooks=False))
    assert json.loads(argv[at + 1])["disableAllHooks"] is True  # no settings hook runs
    assert argv[-2:] == ("--add-dir", "/x")
    # the same flag from a config or the command line stays refused
    assert weakening(["--settings", argv[at + 1]]) is not None


def test_hooks_are_left_alone_unless_turned_off() -> None:
    # toolhost run turns them off; the SDK adapter's settings (a program's own) do not
    assert "disableAllHooks" not in ask_everything(["s"])
    assert ask_everything(["s"], hooks=False)["disableAllHooks"] is True
    assert json.loads(settings_json(["s"], hooks=False)) == ask_everything(["s"], hooks=False)


def test_no_skill_shell_line_runs_under_either_settings() -> None:
    # the CLI would judge a skill's `!` lines by its own rules only, never asking toolhost
    # (tests/e2e/test_run_skill_shell.py); toolhost run's and the SDK adapter's settings alike
    for hooks in (True, False):
        assert ask_everything(["s"], hooks=hooks)["disableSkillShellExecution"] is True
    argv = build_command("claude", {"s": []}, options=RunOptions(), environ={}).argv
    assert json.loads(argv[argv.index("--settings") + 1])["disableSkillShellExecution"] is True


def test_every_bash_call_starts_in_the_folder_the_rules_judge() -> None:
    # the CLI keeps a cd for the next call without it, beside the rules' start folder
    keep = {"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "1"}
    assert ask_everything()["env"] == keep  # beats the user's and the project's env
    undone = RunOptions(env={"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": "0"})
    for options in (RunOptions(), undone):
        env = build_command("claude", {"s": []}, options=options,
                            environ={"CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR": ""}).env
        assert env["CLAUDE_BASH_MAINTAIN_PROJECT_WORKING_DIR"] == "1"
