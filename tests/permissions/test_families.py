"""Tool families: ``Task``/``Agent`` are one tool for the rules (the CLI reports ``Agent``),
``Read``/``Edit`` rules cover their siblings, and so do globs naming a family's head."""

from __future__ import annotations

from typing import Any

import pytest

from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy

DEPLOY = {"subagent_type": "general-purpose", "description": "d", "prompt": "deploy prod"}
SAFE = {"subagent_type": "explorer", "description": "d", "prompt": "look around"}


def _policy(default: str, *rules: RuleConfig) -> Any:
    return compile_policy(PermissionsConfig(default=default, rules=rules))  # type: ignore[arg-type]


SUBAGENT_RULES = [
    RuleConfig("deny", "{}(general-purpose)"),
    RuleConfig("deny", "{}", when={"prompt": {"regex": "(?is).*deploy.*"}}),
    RuleConfig("deny", "{}", expr="'deploy' in args.prompt"),
    RuleConfig("deny", "{}"),
    RuleConfig("ask", "{}"),
    RuleConfig("ask", "{}(general-purpose)"),
]


# content rules (`Task(general-purpose)`) name one tool, not a glob
WRITTEN = [pytest.param(rule, written, id=f"{rule.effect}-{rule.tool}-{written}")
           for rule in SUBAGENT_RULES for written in ("Task", "Agent", "Ta?k", "Ag*", "T*")
           if "(" not in rule.tool or not any(c in written for c in "*?")]


@pytest.mark.parametrize("called", ["Task", "Agent"])
@pytest.mark.parametrize(("rule", "written"), WRITTEN)
def test_a_rule_on_either_subagent_name_holds_for_both(
        rule: RuleConfig, written: str, called: str) -> None:
    concrete = RuleConfig(rule.effect, rule.tool.format(written), when=rule.when, expr=rule.expr)
    policy = _policy("allow", concrete)
    assert policy.decide(called, DEPLOY).behavior == rule.effect


@pytest.mark.parametrize(("written", "called"), [("Task", "Agent"), ("Agent", "Task"),
                                                  ("Task(explorer)", "Agent"),
                                                  ("Agent(explorer)", "Task")])
def test_an_allow_on_either_name_allows_both(written: str, called: str) -> None:
    policy = _policy("deny", RuleConfig("allow", written))
    assert policy.decide(called, SAFE).behavior == "allow"
    if "(" in written:
        assert policy.decide(called, DEPLOY).behavior == "deny"


@pytest.mark.parametrize("written", ["Task", "Agent"])
def test_the_cli_is_told_to_hide_both_names(written: str) -> None:
    assert set(_policy("allow", RuleConfig("deny", written)).disallowed_tools()) \
        >= {"Task", "Agent"}


@pytest.mark.parametrize(("written", "family"), [
    ("Rea?", ("Read", "Grep", "Glob", "LS", "NotebookRead")),
    ("Re*", ("Read", "Grep", "Glob", "LS", "NotebookRead")),
    ("Edi*", ("Edit", "Write", "MultiEdit", "NotebookEdit")),
    ("?dit", ("Edit", "Write", "MultiEdit", "NotebookEdit")),
    ("*", ("Read", "Grep", "Edit", "Write", "Task", "Agent")),
])
@pytest.mark.parametrize("effect", ["deny", "ask"])
def test_a_glob_naming_a_family_head_names_the_family(
        written: str, family: tuple[str, ...], effect: str) -> None:
    policy = _policy("allow", RuleConfig(effect, written))  # type: ignore[arg-type]
    for name in family:
        assert policy.decide(name, {"file_path": "/etc/x", "path": "/etc"}).behavior == effect
    assert set(policy.disallowed_tools() if effect == "deny" else family) >= set(family)


# A content rule's argument missing or of the wrong type: which file, agent, command or host
# the call touches is unknown, so every deny and ask rule matches and no allow rule does.
UNKNOWN_TARGET = [
    (rule, tool, value)
    for rule, tool, key in [("Task(explorer)", "Agent", "subagent_type"),
                            ("Agent(explorer)", "Task", "subagent_type"),
                            ("Read(//etc/**)", "Read", "file_path"),
                            ("Edit(//etc/**)", "Write", "file_path"),
                            ("Edit(//etc/**)", "NotebookEdit", "notebook_path"),
                            ("Read(//etc/**)", "NotebookRead", "notebook_path"),
                            ("Bash(rm:*)", "Bash", "command"),
                            ("WebFetch(domain:example.com)", "WebFetch", "url")]
    for value in ({}, {key: None}, {key: ["x"]}, {key: 1}, {key: {"k": "v"}}, {key: True})
] + [("Read(//etc/**)" if k else "Read(//tmp/**)", "Glob", {"path": "/tmp", "pattern": v})
     for v in (None, ["/etc/*"], 1, {"p": "/etc/*"}) for k in (0, 1)]


@pytest.mark.parametrize(("rule", "tool", "tool_input"), UNKNOWN_TARGET)
@pytest.mark.parametrize("effect", ["deny", "ask"])
def test_an_unknown_target_meets_deny_and_ask(rule: str, tool: str, tool_input: Any,
                                              effect: str) -> None:
    assert _policy("allow", RuleConfig(effect, rule)).decide(tool, tool_input).behavior == effect


@pytest.mark.parametrize(("rule", "tool", "tool_input"), UNKNOWN_TARGET)
def test_an_unknown_target_is_never_allowed_by_a_content_rule(rule: str, tool: str,
                                                              tool_input: Any) -> None:
    assert _policy("ask", RuleConfig("allow", rule)).decide(tool, tool_input).behavior == "ask"


@pytest.mark.parametrize("written", ["Task(explore)", "Agent(EXPLORE)", "Task( Explore )"])
@pytest.mark.parametrize("sent", ["Explore", "explore", " Explore", "EXPLORE",
                                  # round 18: width, invisible characters, dashes
                                  "ｅｘｐｌｏｒｅ", "Explore\u200b", "\u2060Explore\ufeff"])
@pytest.mark.parametrize("tool", ["Agent", "Task"])
def test_a_deny_or_ask_names_a_subagent_whatever_its_case_or_width(written: str, sent: str,
                                                          tool: str) -> None:
    for effect in ("deny", "ask"):
        decided = _policy("allow", RuleConfig(effect, written)).decide(
            tool, {"subagent_type": sent, "prompt": "p", "description": "d"})
        assert decided.behavior == effect, (written, sent)
    # an allow names the agent exactly as written
    allowed = _policy("ask", RuleConfig("allow", "Task(Explore)")).decide(
        tool, {"subagent_type": sent, "prompt": "p", "description": "d"})
    assert allowed.behavior == ("allow" if sent == "Explore" else "ask")


@pytest.mark.parametrize("sent", ["general\u2010purpose", "general\u2013purpose",
                                  "ｇｅｎｅｒａｌ-purpose", "general-purpose\u200b",
                                  # a lone surrogate or a control character: unknown to whom
                                  # a program resolves it, so it meets every deny
                                  "general\ud800-purpose", "general-purpose\udc80",
                                  "general-purpose\x00", "gen\teral-purpose",
                                  "\x1bgeneral-purpose", "general-purpose\x85"])
def test_a_subagent_named_with_another_dash_or_width_meets_the_deny(sent: str) -> None:
    """Round 18: a name the CLI may resolve to the denied agent is denied."""
    decided = _policy("allow", RuleConfig("deny", "Task(general-purpose)")).decide(
        "Agent", {"subagent_type": sent, "prompt": "p", "description": "d"})
    assert decided.behavior == "deny"
    assert _policy("allow", RuleConfig("deny", "Task(general-purpose)")).decide(
        "Agent", {"subagent_type": "general_purpose", "prompt": "p"}).behavior == "allow"
