"""The lint's indexes give the findings a comparison of every pair of rules gives (the same
rule named as hiding another), and thousands of rules lint in well under a second."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.cli import main
from toolhost.config.model import Origin, PermissionsConfig, RuleConfig
from toolhost.permissions import compile_policy, lint_policy
from toolhost.permissions.authoring.lint import _covers, _names_cover
from toolhost.permissions.rules import CompiledRule


def _pairwise(rules: Any) -> dict[int, tuple[str, int]]:
    """The reference: every rule compared with every earlier one, the first that hides it."""
    out: dict[int, tuple[str, int]] = {}
    for j, rule in enumerate(rules):
        for earlier in rules[:j]:
            if earlier.text == rule.text and earlier.effect == rule.effect:
                out[rule.origin.line] = ("duplicate", earlier.origin.line)
                break
            if _covers(earlier, rule):
                out[rule.origin.line] = ("shadowed", earlier.origin.line)
                break
        else:  # (round 13) an earlier conditional deny/ask with the same `when` hides it
            order = {"deny": 0, "ask": 1, "allow": 2}
            for earlier in rules[:j]:
                if (earlier.conditions and rule.conditions and _names_cover(earlier, rule)
                        and order[earlier.effect] < order[rule.effect]):
                    out[rule.origin.line] = ("shadowed", earlier.origin.line)
                    break
    return out


def _found(findings: Any, rules: tuple[CompiledRule, ...]) -> dict[int, tuple[str, int]]:
    out = {}
    for f in findings:
        if f.code in ("duplicate", "shadowed"):
            line = int(f.message.split(" at team.yaml:")[1].split(":")[0])
            out[f.origin.line] = (f.code, line)
    return out


SERVERS = st.sampled_from(["git", "db", "g", "git_", "a_b"])
TOOLS = st.sampled_from(["log", "push", "_x", "get_a", "get", "a__b"])
PATTERNS = st.one_of(
    st.builds(lambda s, t: f"mcp__{s}__{t}", SERVERS, TOOLS),
    st.builds(lambda s: f"mcp__{s}", SERVERS),
    st.builds(lambda s: f"mcp__{s}__*", SERVERS),
    st.builds(lambda s, t, w: f"mcp__{s}__{t[:2]}{w}", SERVERS, TOOLS, st.sampled_from("*?")),
    st.builds(lambda s, w: f"mcp__{s[:1]}{w}", SERVERS, st.sampled_from("*?")),
    st.sampled_from(["mcp__*", "*", "*__log", "*g*", "mcp__*__push", "Read", "Rea*", "Bash",
                     "Edit", "*Read", "Web*", "?ead"]),
)
RULES = st.lists(st.tuples(st.sampled_from(["allow", "deny", "ask"]), PATTERNS, st.booleans()),
                 max_size=25)


@settings(max_examples=300, deadline=None)
@given(RULES)
def test_the_indexed_lint_names_what_a_pairwise_comparison_names(
        spec: list[tuple[str, str, bool]]) -> None:
    rules = tuple(
        RuleConfig(effect, tool, origin=Origin("team.yaml", i + 1, 5, "permissions.x"),  # type: ignore[arg-type]
                   **({"when": {"n": 1}} if cond else {}))
        for i, (effect, tool, cond) in enumerate(spec))
    names = ["mcp__git__log", "mcp__db__query", "mcp__g__get_a", "mcp__git___x"]
    policy = compile_policy(PermissionsConfig(rules=rules), cwd="/tmp", tool_names=names)
    findings = lint_policy(policy, servers=["git", "db"])
    assert _found(findings, policy.rules) == _pairwise(policy.rules)
    never = {f.origin.line for f in findings if f.code == "never-matches"}
    for rule in policy.rules:  # the reference: every name tried with every rule
        pat = rule.names
        server = (pat.server or pat.source[5:].partition("__")[0]) if pat.is_mcp else ""
        if pat.is_mcp and "*" not in server and "?" not in server:
            assert (rule.origin.line in never) == (not any(pat.matches(n) for n in names))


def test_never_matches_uses_every_reading_of_a_declared_name() -> None:
    rules = tuple(RuleConfig("deny", tool, origin=Origin("team.yaml", i + 1, 5, "p"))
                  for i, tool in enumerate(["mcp__git", "mcp__git_", "mcp__git__*x",
                                            "mcp__git__?og", "mcp__nope__*", "mcp__git__l*"]))
    policy = compile_policy(PermissionsConfig(rules=rules), cwd="/tmp",
                            tool_names=["mcp__git___log", "mcp__git__lox"])
    never = {f.origin.line for f in lint_policy(policy) if f.code == "never-matches"}
    assert never == {4, 5}  # ?og is three characters; _log, four


def _validate(path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[float, str]:
    # in-process: the command's own code, without a Python start per shape (the test's cost)
    start = time.monotonic()
    main([*args, str(path)])
    out = capsys.readouterr()
    return time.monotonic() - start, out.out + out.err


def test_ten_thousand_rules_validate_and_lint_in_seconds(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = 10_000
    shapes = {
        "exact": [f"mcp__s{i}__t" for i in range(n)],
        "servers": [f"mcp__s{i}" for i in range(n)],
        "globs": [f"mcp__s{i}__get_*" for i in range(n)],
        "suffixes": [f"*_t{i}" for i in range(n)],
        "same": ["mcp__s__t"] * n,
    }
    for name, rules in shapes.items():
        config = tmp_path / f"{name}.yaml"
        config.write_text("toolhost: 1\npermissions:\n  allow: [" + ", ".join(rules) + "]\n")
        # validate runs the same lint (lint_policy) on every shape; the command once
        commands = [("validate", "--no-layers")] + (
            [("permissions", "lint", "--no-layers")] if name == "suffixes" else [])
        for args in commands:
            took, out = _validate(config, capsys, *args)
            assert "Traceback" not in out and "internal error" not in out, out[-2000:]
            assert f"{config.name}:" in out or "ok" in out, out[-2000:]
            assert took < 20, (name, args, took)  # was minutes (pairwise); ~1-2 s now
