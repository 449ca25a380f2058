"""Round 15: a deny or ask rule on a built-in family (``Read``: Read, Grep, Glob, LS,
NotebookRead; ``Edit``: Edit, Write, MultiEdit, NotebookEdit) whose ``when`` tests an argument
only some of its tools have is named by ``validate`` at its line, naming the tools that escape
it: ``deny: {tool: Read, when: {file_path: {path_under: /etc}}}`` never holds for a Grep, Glob
or LS of /etc (they have ``path``), which stay allowed."""

from __future__ import annotations

from pathlib import Path

from toolhost.compile import compile_tools
from toolhost.config.loader import load_config
from toolhost.config.model import PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.authoring.mistakes import review_rules

NAMED = [  # (tool, when, the tools named as escaping)
    ("Read", "{file_path: {path_under: /etc}}", "Glob, Grep, LS, NotebookRead"),
    ("Read", "{path: {path_under: /etc}}", "NotebookRead, Read"),
    ("Edit", "{file_path: {path_glob: \"/etc/**\"}}", "NotebookEdit"),
    ("Edit", "{content: {regex: \".*SECRET.*\"}}", "Edit, MultiEdit, NotebookEdit"),
    ("Read", "{notebook_path: {path_under: /etc}}", "Glob, Grep, LS, Read"),
]
QUIET = [("Read", "{file_path: {present: false}}"), ("Grep", "{path: {path_under: /etc}}"),
         ("Write", "{content: {regex: \".*SECRET.*\"}}"),
         ("Task", "{subagent_type: explorer}"), ("Bash", "{run_in_background: true}")]


def _review(tmp_path: Path, rules: list[tuple[str, str]], effect: str) -> list[str]:
    body = "".join(f"    - tool: {tool}\n      when: {when}\n" for tool, when in rules)
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\npermissions:\n  {effect}:\n{body}")
    return [f"{f.level} {f.problem}" for f in review_rules(load_config(str(config),
                                                                        layers=False))]


def test_each_is_named_at_its_line_in_one_run(tmp_path: Path) -> None:
    for effect in ("deny", "ask"):
        found = [f for f in _review(tmp_path, [(t, w) for t, w, _ in NAMED] + QUIET, effect)
                 if "no argument" in f]
        for k, (_, _, lack) in enumerate(NAMED):
            assert any(f"toolhost.yaml:{5 + 2 * k}:" in f and f"{lack} ha" in f
                       and f"this {effect} rule never holds" in f for f in found), (k, found)
        assert len(found) == len(NAMED), found


def test_an_allow_is_not_named(tmp_path: Path) -> None:
    assert not [f for f in _review(tmp_path, [(t, w) for t, w, _ in NAMED], "allow")
                if "no argument" in f]


def test_the_hint_names_the_path_rule_covering_the_family(tmp_path: Path) -> None:
    found = _review(tmp_path, [NAMED[0][:2]], "deny")
    assert any("Read(//etc/**)" in f and "or add a rule testing notebook_path or path" in f
               for f in found), found


def test_why_the_tools_named_escape() -> None:
    rule = RuleConfig(effect="deny", tool="Read", when={"file_path": {"path_under": "/etc"}})
    policy = compile_policy(PermissionsConfig(rules=[rule], default="allow"))
    assert policy.decide("Read", {"file_path": "/etc/passwd"}).behavior == "deny"
    assert policy.decide("Grep", {"pattern": "x", "path": "/etc"}).behavior == "allow"


MCP_SERVERS = """servers:
  fs:
    tools:
      read:
        command: {argv: [cat, "{{ path }}"]}
        params: {path: {type: string}, depth: {type: integer}}
      open:
        command: {argv: [cat, "{{ file }}"]}
        params: {file: {type: string}}
"""


def _review_mcp(tmp_path: Path, effect: str, rules: str) -> list[str]:
    config = tmp_path / "toolhost.yaml"
    config.write_text(f"toolhost: 1\n{MCP_SERVERS}permissions:\n  {effect}:\n{rules}")
    loaded = load_config(str(config), layers=False)
    return [f"{f.level} {f.problem}" for f in review_rules(loaded, compile_tools(loaded))]


def test_a_server_or_glob_rule_over_the_config_s_tools_names_those_that_escape(
        tmp_path: Path) -> None:
    """Round 18: ``mcp__fs__*`` testing ``path`` never holds for mcp__fs__open (``file``)."""
    rules = ("    - tool: 'mcp__fs__*'\n      when: {path: {path_under: /etc}}\n"
             "    - tool: mcp__fs\n      when: {file: {regex: '.*etc.*'}}\n"
             "    - tool: mcp__fs__read\n      when: {path: {path_under: /etc}}\n")
    found = [f for f in _review_mcp(tmp_path, "deny", rules) if "no argument" in f]
    assert any("toolhost.yaml:14:" in f and "mcp__fs__open has no argument 'path' (theirs: "
               "file)" in f for f in found), found
    assert any("toolhost.yaml:16:" in f and "mcp__fs__read has no argument 'file'" in f
               for f in found), found
    assert len(found) == 2, found
    assert not [f for f in _review_mcp(tmp_path, "allow", rules) if "no argument" in f]


def test_a_deny_whose_test_cannot_judge_the_argument_s_type_is_said_to_hold_always(
        tmp_path: Path) -> None:
    """Round 18: such a deny holds for every call giving the argument (a test that cannot
    judge a value counts as a match), so validate no longer says it "never holds"."""
    rules = ("    - tool: mcp__fs__read\n      when: {depth: {glob: '1*'}}\n"
             "    - tool: mcp__fs__read\n      when: {path: {one_of: [1, true]}}\n")
    for effect in ("deny", "ask"):
        found = [f for f in _review_mcp(tmp_path, effect, rules) if "when." in f]
        assert len(found) == 2 and all(
            f.startswith("error") and "holds for every call that gives it" in f
            and "never holds" not in f for f in found), found
    found = [f for f in _review_mcp(tmp_path, "allow", rules) if "when." in f]
    assert len(found) == 2 and all("never holds" in f for f in found), found
    policy = compile_policy(PermissionsConfig(rules=[RuleConfig(
        effect="deny", tool="mcp__fs__read", when={"depth": {"glob": "1*"}}), RuleConfig(
        effect="allow", tool="mcp__fs__read")], default="ask"))
    assert policy.decide("mcp__fs__read", {"path": "x", "depth": 5}).behavior == "deny"
