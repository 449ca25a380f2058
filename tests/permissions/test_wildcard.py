"""Wildcards of rules are matched in time linear in the text (RE2): a ``Bash(...)`` command
pattern against the command the model writes, a tool-name glob against the tool's name. Python's
backtracking ``re`` took seconds on a 100-character command (``Bash(echo *a*a*a*a*a*b)``) and
minutes on 200.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.inproc import run_cli
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy
from toolhost.permissions.wildcard import compile_wildcard, literal
from toolhost.regex import compile as linear


def _policy(effect: str, rule: str) -> object:
    return compile_policy(PermissionsConfig(
        default="deny" if effect == "allow" else "allow",
        rules=(RuleConfig(effect, rule, origin=Origin("p.yaml", 1)),)))  # type: ignore[arg-type]


BASH = [  # (rule, a long command it almost names)
    ("Bash(echo *a*a*a*a*a*b)", "echo " + "a" * 50_000),
    ("Bash(curl * | * cat *x)", "curl " + "| cat " * 5_000),
    # a subcommand first: options past the 64 words looked at for one would meet every deny
    # and ask rule (tests/permissions/test_form_cap.py)
    ("Bash(git * --force * *z)", "git fetch " + "--force " * 10_000),
    ("Bash(echo a && echo *a*a*a*b)", "echo a && echo " + "a" * 50_000),  # a whole-line rule
    ("Bash(" + " ".join(["x*"] * 30) + " y)", " ".join(["x"] * 5_000)),
]


@pytest.mark.parametrize("effect", ["deny", "ask", "allow"])
@pytest.mark.parametrize(("rule", "command"), BASH)
def test_a_bash_pattern_against_a_long_command_decides_at_once(effect: str, rule: str,
                                                              command: str) -> None:
    policy = _policy(effect, rule)
    started = time.thread_time()  # CPU time: a loaded machine's wall clock proves nothing
    decision = policy.decide("Bash", {"command": command})  # type: ignore[attr-defined]
    assert time.thread_time() - started < 2.0
    assert decision.rule is None  # the rule does not name it


PATHS = [  # (rule, tool, a long path it almost names): round 12, Python's re backtracked in
    # time growing with the path to the power of the rule's `**` (7 s for this one)
    ("Read(**/**/**/x)", "Read", "a/" * 1_500 + "y"),
    ("Edit(//tmp/**/**/**/z/**)", "Write", "/tmp/" + "a/" * 1_500 + "y"),
]


@pytest.mark.parametrize("effect", ["deny", "ask", "allow"])
@pytest.mark.parametrize(("rule", "tool", "path"), PATHS)
def test_a_path_pattern_against_a_long_path_decides_at_once(effect: str, rule: str, tool: str,
                                                            path: str) -> None:
    policy = _policy(effect, rule)
    started = time.thread_time()  # CPU time: a loaded machine's wall clock proves nothing
    decision = policy.decide(tool, {"file_path": path})  # type: ignore[attr-defined]
    assert time.thread_time() - started < 1.0
    assert decision.rule is None  # the rule does not name it


NAMES = [("mcp__a__*a*a*a*a*a*a*b", "mcp__a__" + "a" * 20_000),
         ("*a*a*a*a*a*a*b", "mcp__a__" + "a" * 20_000),
         ("mcp__*a*a*a*a*a*b", "mcp__" + "a" * 10_000 + "__x"),
         ("mcp__?*?*?*?*?*?*b", "mcp__" + "a" * 20_000)]


@pytest.mark.parametrize("effect", ["deny", "allow"])
@pytest.mark.parametrize(("rule", "name"), NAMES)
def test_a_name_glob_against_a_long_name_decides_at_once(effect: str, rule: str,
                                                        name: str) -> None:
    policy = _policy(effect, rule)
    started = time.thread_time()
    assert policy.decide(name, {}).rule is None  # type: ignore[attr-defined]
    assert time.thread_time() - started < 2.0


def _reference(glob: str, text: str) -> bool:
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in glob)
    return re.fullmatch(body, text, re.DOTALL) is not None


ALPHABET = st.sampled_from(list("ab*?.-_:@ [](){}|\\^$+&~#\n\t\r\x00\x7fé\u200bß😀"))


@settings(max_examples=300, deadline=None)
@given(glob=st.text(ALPHABET, max_size=10), text=st.text(ALPHABET, max_size=12))
def test_a_wildcard_means_what_python_re_meant(glob: str, text: str) -> None:
    assert compile_wildcard(glob).fullmatch(text) is _reference(glob, text)


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=30))
def test_a_literal_matches_exactly_its_text(text: str) -> None:
    pattern = linear("(?s)" + literal(text))
    assert pattern.fullmatch(text)
    assert not pattern.fullmatch(text + "x")


@pytest.mark.parametrize(("rule", "command", "expected"), [
    ("Bash(git * main)", "git push origin main", "deny"),
    ("Bash(git * main)", "git push origin main2", "allow"),
    ("Bash(ls *)", "ls", "deny"), ("Bash(ls *)", "lsx", "allow"),
    ("Bash(npm run test:*)", "npm run test --watch", "deny"),
    ("Bash(echo a.b)", "echo aXb", "allow"), ("Bash(echo [a])", "echo a", "allow"),
    ("Bash(echo a && rm *)", "echo a && rm -rf /", "deny"),
])
def test_bash_patterns_still_mean_what_they_meant(rule: str, command: str,
                                                 expected: str) -> None:
    assert _policy("deny", rule).decide(  # type: ignore[attr-defined]
        "Bash", {"command": command}).behavior == expected


def test_permissions_check_with_a_long_command_answers_at_once(tmp_path: Path) -> None:
    config = tmp_path / "toolhost.yaml"
    config.write_text("toolhost: 1\npermissions:\n  default: allow\n  deny:\n"
                      "    - 'Bash(echo *a*a*a*a*a*a*b)'\n")
    command = tmp_path / "input.json"
    command.write_text(json.dumps({"command": "echo " + "a" * 50_000}))
    done = run_cli(["permissions", "check", str(config), "Bash", "--input", f"@{command}"])
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("allow")


@pytest.mark.parametrize(("rule", "command", "expected"), [
    ("Bash(echo *?*)", "echo a?b", "deny"), ("Bash(echo *?*)", "echo ab", "allow"),
    ("Bash(echo ?)", "echo a", "allow"), ("Bash(echo ?)", "echo ?", "deny"),
    ("Bash(echo *?*?*)", "echo ab", "allow"), ("Bash(echo *?*?*)", "echo a?b?c", "deny"),
])
def test_a_question_mark_in_a_bash_pattern_is_literal(rule: str, command: str,
                                                      expected: str) -> None:
    assert _policy("deny", rule).decide(  # type: ignore[attr-defined]
        "Bash", {"command": command}).behavior == expected
