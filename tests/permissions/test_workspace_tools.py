"""The CLI's workspace tools (``mcp__workspace__bash``, ``mcp__workspace__web_fetch``: a
desktop session's shell and fetch, which the CLI's own managed Bash and WebFetch denies
cover) are judged by the Bash and WebFetch rules. Before, as MCP tools of an undeclared
server, ``deny: Bash(rm:*)`` beside ``default: allow`` let ``mcp__workspace__bash`` run
``rm -rf ~`` and ``deny: WebFetch(domain:evil.com)`` let its fetch reach evil.com."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

BASH, FETCH = "mcp__workspace__bash", "mcp__workspace__web_fetch"


def policy(rules: list[tuple[str, str]], default: str = "allow") -> Any:
    return compile_policy(PermissionsConfig(
        rules=tuple(RuleConfig(effect=e, tool=t) for e, t in rules),
        default=default))  # type: ignore[arg-type]


@pytest.mark.parametrize("rules", [
    [("deny", "Bash(rm:*)")], [("deny", "Bash(rm:*)"), ("allow", "mcp__workspace")],
    [("deny", "Bash(rm:*)"), ("allow", "mcp__*")], [("deny", "Bash")],
])
@pytest.mark.parametrize("command", ["rm -rf ~", "ls; rm x", "sudo /bin//rm x", "$X", 5, None])
def test_a_bash_deny_denies_the_workspace_shell(rules: list[tuple[str, str]],
                                                command: Any) -> None:
    decision = policy(rules).decide(BASH, {"command": command})
    assert decision.behavior == "deny", (rules, command, decision)
    assert "runs its command in the shell" in decision.message


def test_a_bash_ask_asks_and_other_commands_stand() -> None:
    p = policy([("ask", "Bash(git push:*)"), ("deny", "Bash(rm:*)")])
    assert p.decide(BASH, {"command": "git push"}).behavior == "ask"
    assert p.decide(BASH, {"command": "ls -la"}).behavior == "allow"
    assert p.decide(BASH, {}).behavior == "deny"  # no command: nothing to prove


@pytest.mark.parametrize("url", ["https://evil.com/", "http://EVIL.com./x", "https://a@evil.com",
                                 "not a url", 7])
def test_a_webfetch_deny_denies_the_workspace_fetch(url: Any) -> None:
    decision = policy([("deny", "WebFetch(domain:evil.com)")]).decide(
        FETCH, {"url": url, "prompt": "x"})
    assert decision.behavior == "deny", (url, decision)
    assert "fetches its url" in decision.message


def test_a_webfetch_allow_list_bounds_an_allowed_workspace_fetch() -> None:
    p = policy([("allow", "WebFetch(domain:ok.com)"), ("allow", "mcp__workspace")], "deny")
    assert p.decide(FETCH, {"url": "https://ok.com/"}).behavior == "allow"
    assert p.decide(FETCH, {"url": "https://evil.com/"}).behavior == "deny"


def test_whole_denies_hide_them_with_bash_and_webfetch() -> None:
    assert BASH in policy([("deny", "Bash")]).disallowed_tools()
    assert FETCH in policy([("deny", "WebFetch")]).disallowed_tools()
    assert {BASH, FETCH}.isdisjoint(policy([("deny", "Read")]).disallowed_tools())
