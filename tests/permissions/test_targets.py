"""Which tools a rule names: looked up, not tried against every tool (rules x tools)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.config import load_config
from toolhost.permissions import names as names_mod
from toolhost.permissions.authoring.mistakes import review_rules
from toolhost.permissions.names import parse_name_pattern
from toolhost.permissions.targets import ToolIndex
from toolhost.permissions.unanswered import always_denied

PATTERNS = ["mcp__s__t3", "mcp__s", "mcp__s__*", "mcp__s__t1*", "mcp__s_", "mcp__a",
            "mcp__a__b", "mcp__a__*", "mcp__*", "mcp__s*__t?", "mcp__*__x", "Read", "Edit",
            "Rea?", "*", "Bash", "mcp__nope__*", "mcp__a_", "mcp__a___x"]


def test_matching_is_what_each_pattern_matches() -> None:
    index = ToolIndex(tools={"s": ("t1", "t12", "t3", "_x"), "a": ("b__c", "_x", "b")},
                      external=frozenset(), builtins=frozenset({"Read", "Write", "Bash", "LS"}))
    every = [*index.wire_names, *sorted(index.builtins)]
    for text in PATTERNS:
        pattern = parse_name_pattern(text)
        assert index.matching(pattern) == [n for n in every if pattern.matches(n)], text


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]
    real = names_mod.NamePattern.matches

    def matches(self: names_mod.NamePattern, tool_name: str, *, strict: bool = False) -> bool:
        calls[0] += 1
        return real(self, tool_name, strict=strict)

    monkeypatch.setattr(names_mod.NamePattern, "matches", matches)
    return calls


def _config(tmp_path: Path, n: int) -> Path:
    lines = ["toolhost: 1", "servers:", "  s:", "    tools:"]
    for t in range(n):
        lines += [f"      t{t}:", "        command: [echo, hi]"]
    lines += ["permissions:", "  allow:"] + [f"    - mcp__s__t{i}" for i in range(n)]
    lines += ["    - mcp__s__t1*", "  ask: [mcp__s__t7]"]
    path = tmp_path / "c.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_rules_are_not_tried_against_every_tool(tmp_path: Path, counted: list[int]) -> None:
    # 300 tools and 300 rules naming one each: tried pairwise, 90,000+ tests
    config = load_config(str(_config(tmp_path, 300)))
    counted[0] = 0
    assert not [f for f in review_rules(config) if f.level == "error"]
    assert counted[0] < 10 * 300, counted[0]
    counted[0] = 0
    assert always_denied(config) == ["mcp__s__t7"]
    assert counted[0] < 10 * 300, counted[0]


def test_glob_rules_are_not_tried_against_every_tool(tmp_path: Path,
                                                     counted: list[int]) -> None:
    # 300 tools, 300 glob rules each naming one tool by its suffix: pairwise, 90,000 tests
    lines = ["toolhost: 1", "servers:", "  s:", "    tools:"]
    lines += [f"      t{t}x: {{command: [echo, hi]}}" for t in range(300)]
    lines += ["permissions:", "  allow:"] + [f"    - mcp__*__t{i}x" for i in range(1, 300)]
    path = tmp_path / "g.yaml"
    path.write_text("\n".join(lines) + "\n")
    config = load_config(str(path))
    counted[0] = 0
    assert always_denied(config) == ["mcp__s__t0x"]
    assert counted[0] < 10 * 300, counted[0]
    index = ToolIndex(tools={"s": tuple(f"t{t}x" for t in range(300))},
                      external=frozenset(), builtins=frozenset())
    counted[0] = 0
    assert index.matching(parse_name_pattern("mcp__*__t7x")) == ["mcp__s__t7x"]
    assert index.matching(parse_name_pattern("mcp__s__t1?x")) == [
        f"mcp__s__t1{d}x" for d in range(10)]
    assert counted[0] < 2 * 300, counted[0]


def test_mcp_globs_are_not_each_tried_for_shadowing(tmp_path: Path,
                                                   counted: list[int]) -> None:
    # 300 mcp__*__tNx rules all begin "mcp__": the shadow lint tried each on every earlier one
    lines = ["toolhost: 1", "servers:", "  s:", "    tools:"]
    lines += [f"      t{t}x: {{command: [echo, hi]}}" for t in range(300)]
    lines += ["permissions:", "  allow:"] + [f"    - mcp__*__t{i}x" for i in range(300)]
    lines += ["    - mcp__*__t5x"]  # a repeat: still found
    path = tmp_path / "g.yaml"
    path.write_text("\n".join(lines) + "\n")
    config = load_config(str(path))
    counted[0] = 0
    found = [f.problem.message for f in review_rules(config)]
    assert counted[0] < 10 * 300, counted[0]
    assert any("mcp__*__t5x" in m for m in found), found
