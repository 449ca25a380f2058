"""Round 12: a rule naming a whole server (``mcp__kb``, ``mcp__kb__*``, ``mcp__k*``) as a
deny or ask holds back that server's resources and prompts too (``ReadMcpResourceTool``,
``ListMcpResourcesTool``, ``GetMcpPromptTool`` with ``server: kb``): "deny the server" means
nothing from it. An allow of the server still does not allow them (they need their own
rules), and a rule naming one tool of the server does not reach them."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy


def policy(rules: list[tuple[str, str]], default: str) -> Any:
    return compile_policy(PermissionsConfig(
        rules=[RuleConfig(effect=e, tool=t) for e, t in rules], default=default))


READ = ("ReadMcpResourceTool", {"server": "kb", "uri": "notes://a"})
PROMPT = ("GetMcpPromptTool", {"server": "kb", "name": "p", "arguments": {}})
LIST = ("ListMcpResourcesTool", {"server": "kb"})
OTHER = ("ReadMcpResourceTool", {"server": "kb2", "uri": "notes://a"})
NO_SERVER = ("ReadMcpResourceTool", {"uri": "notes://a"})
DOTTED = ("ReadMcpResourceTool", {"server": "my.kb", "uri": "notes://a"})

CASES = [
    # (rules, default, call, decision)
    *[([("deny", r)], "allow", c, "deny") for r in ("mcp__kb", "mcp__kb__*", "mcp__k*", "mcp__*",
                                                    "mcp__k?", "mcp__kb__**")
      for c in (READ, PROMPT, LIST)],
    *[([("deny", r)], "allow", NO_SERVER, "deny") for r in ("mcp__kb", "mcp__kb__*", "mcp__*")],
    ([("deny", "mcp__k*")], "allow", NO_SERVER, "allow"),  # names some servers, not all
    ([("deny", "mcp__kb__?")], "allow", READ, "allow"),  # tools with one-letter names
    ([("deny", "mcp__kb__???")], "allow", READ, "allow"),
    ([("deny", "mcp__*__get")], "allow", READ, "allow"),
    *[([("ask", r)], "allow", c, "ask") for r in ("mcp__kb", "mcp__kb__*")
      for c in (READ, PROMPT, LIST)],
    ([("deny", "mcp__kb")], "allow", OTHER, "allow"),
    ([("deny", "mcp__kb__get")], "allow", READ, "allow"),
    ([("deny", "mcp__kb__get*")], "allow", PROMPT, "allow"),
    ([("deny", "mcp__kb2")], "allow", READ, "allow"),
    ([("deny", "mcp__my_kb")], "allow", DOTTED, "deny"),
    ([("allow", "mcp__kb")], "ask", READ, "ask"),
    ([("allow", "mcp__kb")], "deny", PROMPT, "deny"),
    ([("ask", "mcp__kb"), ("deny", "ReadMcpResourceTool")], "allow", READ, "deny"),
    ([("ask", "mcp__kb"), ("allow", "ReadMcpResourceTool")], "allow", READ, "ask"),
    ([("deny", "mcp__kb"), ("allow", "ReadMcpResourceTool")], "allow", READ, "deny"),
]


@pytest.mark.parametrize("rules,default,call,expected", CASES)
def test_server_wide_rules_hold_resources_and_prompts(
        rules: list[tuple[str, str]], default: str, call: tuple[str, dict[str, Any]],
        expected: str) -> None:
    assert policy(rules, default).decide(*call).behavior == expected


def test_the_denial_says_the_rule_names_the_server() -> None:
    decision = policy([("deny", "mcp__kb")], "allow").decide(*READ)
    assert decision.rule == "mcp__kb" and "whole server" in decision.message


def test_conditional_server_rule_does_not_reach_reads() -> None:
    p = compile_policy(PermissionsConfig(rules=[RuleConfig(
        effect="deny", tool="mcp__kb", when={"table": "x"})], default="allow"))
    assert p.decide(*READ).behavior == "allow"


def test_a_server_rule_for_some_callers_holds_their_reads_only() -> None:
    from toolhost.permissions.callers.identity import Caller, as_caller

    p = compile_policy(PermissionsConfig(rules=[RuleConfig(
        effect="deny", tool="mcp__kb", callers={"groups": ["sales"]})], default="allow"))
    with as_caller(Caller("bob", frozenset(), frozenset({"sales"}))):
        assert p.decide(*READ).behavior == "deny"
    with as_caller(Caller("ana", frozenset(), frozenset({"platform"}))):
        assert p.decide(*READ).behavior == "allow"


# The CLI's ReadMcpResourceDirTool ({server, uri}: a directory resource's children) is a read
# of the server as well: a whole-server deny or ask held back the other three, not it.
DIR = ("ReadMcpResourceDirTool", {"server": "kb", "uri": "notes://dir/"})


@pytest.mark.parametrize(("rules", "default", "call", "expected"), [
    *[([(effect, r)], "allow", DIR, effect) for effect in ("deny", "ask")
      for r in ("mcp__kb", "mcp__kb__*", "mcp__k*", "mcp__*")],
    ([("deny", "mcp__kb")], "allow", ("ReadMcpResourceDirTool", {"uri": "notes://d/"}), "deny"),
    ([("deny", "mcp__kb")], "allow", ("ReadMcpResourceDirTool", {"server": "kb2", "uri": "x"}),
     "allow"),
    ([("deny", "mcp__kb__get")], "allow", DIR, "allow"),
])
def test_a_directory_listing_of_a_denied_server_is_held_too(
        rules: list[tuple[str, str]], default: str, call: tuple[str, dict[str, Any]],
        expected: str) -> None:
    assert policy(rules, default).decide(*call).behavior == expected
