"""Rules on ``GetMcpPromptTool`` (a prompts/get): ``validate`` warns about a rule whose
``name`` can match no declared prompt (on its ``server`` when it names one), and
``permissions check`` answers for a prompt as the server would decide it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.inproc import run_cli
from toolhost.permissions.prompt_rules import unmatched_names

DECLARED = [("kb", "review"), ("kb", "payroll"), ("ops", "deploy")]


@pytest.mark.parametrize(("when", "dead"), [
    ({"name": "review"}, []),
    ({"name": "reviw"}, ["reviw"]),
    ({"name": "kb__review"}, ["kb__review"]),  # the --all listing name is not the rule's
    ({"server": "kb", "name": "deploy"}, ["deploy"]),
    ({"server": {"one_of": ["kb", "ops"]}, "name": "deploy"}, []),
    ({"server": {"glob": "k*"}, "name": "deploy"}, []),  # server unknown: any
    ({"name": {"equals": "payroll"}}, []),
    ({"name": {"equals": "Payroll"}}, ["Payroll"]),
    ({"name": {"one_of": ["review", "nope", "deploy"]}}, ["nope"]),
    ({"name": {"glob": "pay*"}}, []),
    ({"name": {"glob": "x*"}}, ["x*"]),
    ({"server": "ops", "name": {"glob": "re*"}}, ["re*"]),
    ({"name": {"regex": "^nothing$"}}, []),  # a regex is not judged
    ({"arguments.who": "ana"}, []),
])
def test_unmatched_names(when: dict[str, Any], dead: list[str]) -> None:
    assert unmatched_names(when, DECLARED) == dead


CONFIG = """\
toolhost: 1
servers:
  kb:
    tools:
      add: {python: "toolhost.demo:add"}
    prompts:
      review: {template: "hi {{ who }}", arguments: {who: {}}}
      payroll: {template: "pay"}
permissions:
  default: allow
  deny:
    - tool: GetMcpPromptTool
      when: {name: reviw}
    - tool: GetMcpPromptTool
      when: {server: kb, name: {one_of: [payroll, kb__payroll]}}
      message: payroll is for people
    - tool: GetMcpPromptTool
      when: {arguments.who: root}
"""


def _toolhost(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args)


def test_validate_warns_about_prompt_rules_that_cannot_match(tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(CONFIG)
    done = _toolhost("validate", str(tmp_path / "c.yaml"))
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "c.yaml:13:14: permissions.deny[0].when.name: warning" in out, out
    assert "'reviw' can match no prompt" in out
    assert "'kb__payroll' can match no prompt" in out
    assert "'payroll' can match" not in out and "unknown" not in out.lower()
    assert out.count("can match no prompt") == 2


@pytest.mark.parametrize(("given", "decision"), [
    ({"server": "kb", "name": "payroll"}, "deny"),
    ({"server": "kb", "name": "review", "arguments": {"who": "root"}}, "deny"),
    ({"server": "kb", "name": "review", "arguments": {"who": "ana"}}, "allow"),
])
def test_permissions_check_answers_for_a_prompt(tmp_path: Path, given: dict[str, Any],
                                                decision: str) -> None:
    (tmp_path / "c.yaml").write_text(CONFIG)
    done = _toolhost("permissions", "check", str(tmp_path / "c.yaml"), "GetMcpPromptTool",
                     "--input", json.dumps(given), "--json")
    answer = json.loads(done.stdout)
    assert answer["decision"] == decision, done.stdout + done.stderr
    assert "not a tool of this config" not in done.stdout + done.stderr


@pytest.mark.parametrize("rule", ["GetMcpPromptTool", "GetMcp*", "*"])
def test_a_whole_prompt_deny_is_not_passed_to_the_cli(rule: str) -> None:
    from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
    from toolhost.permissions.policy import compile_policy

    deny = RuleConfig(effect="deny", tool=rule, origin=Origin("<t>", 1, 1))
    policy = compile_policy(PermissionsConfig(rules=(deny,)), tool_names=("mcp__kb__add",))
    assert "GetMcpPromptTool" not in policy.disallowed_tools()
