"""Scenario files: what they mean, and every mistake reported with file, line and key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolhost.errors import ConfigError
from toolhost.scripted import load_scenario, parse_scenario

GOOD = """\
description: add two numbers
turns:
  - text: Let me add.
    tool_calls:
      - {tool: mcp__demo__add, input: {a: 6, b: 7}}
      - {tool: mcp__demo__add, input: {a: 1, b: 2}, id: toolu_mine}
  - expect_results:
      - {equals: "13"}
      - {tool: mcp__demo__add, contains: ["3"], is_error: false}
    expect_tools: {includes: [mcp__demo__add], excludes: [mcp__demo__rm]}
    text: "6 + 7 = 13"
"""


def test_good_scenario_is_parsed_with_ids_and_lines() -> None:
    sc = parse_scenario(GOOD, "s.yaml")
    assert sc.description == "add two numbers"
    first, second = sc.turns
    assert first.text == "Let me add."
    assert [c.id for c in first.tool_calls] == ["toolu_scripted_01_1", "toolu_mine"]
    assert first.tool_calls[0].input == {"a": 6, "b": 7}
    assert first.stop_reason == "tool_use"
    assert second.stop_reason == "end_turn"
    assert second.line == 7
    assert [e.call_id for e in second.expect_results] == ["toolu_scripted_01_1", "toolu_mine"]
    assert second.expect_results[0].equals == "13"
    assert second.expect_results[1].contains == ("3",)
    assert second.tools_include == ("mcp__demo__add",)
    assert second.tools_exclude == ("mcp__demo__rm",)


def _problems(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_scenario(text, "bad.yaml")
    return [str(p) for p in info.value.problems]


def test_every_problem_is_reported_with_line_and_key_path() -> None:
    problems = _problems("""\
turns:
  - tool_cals: []
  - tool_calls:
      - {tool: mcp__a__b, input: [1]}
  - expect_results:
      - {tool: mcp__a__c, equals: 3, matches: "("}
    text: done
""")
    assert problems == [
        "bad.yaml:2: turns[0].tool_cals: unknown key (did you mean 'tool_calls'?)",
        "bad.yaml:2: turns[0]: a turn needs 'text', 'tool_calls', 'thinking' or some of them",
        "bad.yaml:4: turns[1].tool_calls[0].input: must be a mapping of arguments (for "
        "another JSON value, or broken JSON, use raw_input: TEXT)",
        "bad.yaml:6: turns[2].expect_results[0].tool: turn 2 calls 'mcp__a__b' at this "
        "position, not 'mcp__a__c'",
        "bad.yaml:6: turns[2].expect_results[0].equals: must be a string",
        "bad.yaml:6: turns[2].expect_results[0].matches: invalid regular expression: "
        "missing ): (",
    ]


def test_expectations_must_follow_tool_calls_one_for_one() -> None:
    assert _problems("turns:\n  - text: hi\n    expect_results: [{equals: x}]\n") == [
        "bad.yaml:3: turns[0].expect_results: the turn before makes no tool calls, so there "
        "are no results to check"]
    text = ("turns:\n  - tool_calls: [{tool: t}, {tool: t}]\n"
            "  - expect_results: [{equals: x}]\n    text: t\n")
    assert _problems(text) == [
        "bad.yaml:3: turns[1].expect_results: must be a list with one entry per tool call of "
        "turn 1 (2), in the same order"]


def test_duplicate_ids_and_yaml_errors() -> None:
    text = "turns:\n  - tool_calls: [{tool: t, id: x}, {tool: t, id: x}]\n"
    assert _problems(text) == ["bad.yaml:2: turns[0].tool_calls[1].id: duplicate tool call "
                               "id 'x'"]
    assert _problems("turns: [\n") [0].startswith("bad.yaml:2:1: turns[0]: invalid YAML")
    assert _problems("turns: []\n") == ["bad.yaml:1: turns: must be a non-empty list of turns"]
    assert _problems("a: 1\na: 2\n") == [
        "bad.yaml:2:1: a: duplicate key (the earlier one would be lost)"]


def test_load_scenario_reads_files_and_names_missing_ones(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(GOOD)
    assert len(load_scenario(path).turns) == 2
    with pytest.raises(ConfigError, match=r"nope.yaml: no such file"):
        load_scenario(tmp_path / "nope.yaml")


@pytest.mark.parametrize(("text", "expected"), [
    ("a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]\n"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)),
     "YAML aliases expand to more than 100,000 nodes"),
    ("turns: " + "[" * 10_000 + "]" * 10_000 + "\n",
     "bad.yaml:1:107: turns[0][0]…[0]: nested more than 100 mappings or lists deep"),
    ("turns:\n  - text: " + "9" * 5001 + "\n", "an integer of more than 4,000 digits"),
    ("turns: !!python/object/apply:os.system [x]\n", "unsupported YAML tag"),
    ("turns:\n  - tool_calls: [{tool: t}]\n  - text: ok\n    expect_results:\n"
     "      - {matches: '^(a)\\1$'}\n", "backreferences are not supported"),
])
def test_hostile_scenario_text_is_a_located_problem(text: str, expected: str) -> None:
    # "…" stands for what the line leaves out of a long key path
    assert any(all(part in line for part in expected.split("…"))
               for line in _problems(text)), _problems(text)


def test_a_scenario_path_that_is_not_a_regular_file_is_never_read(tmp_path: Path) -> None:
    import os

    os.mkfifo(tmp_path / "fifo.yaml")
    with pytest.raises(ConfigError, match="cannot read: not a regular file"):
        load_scenario(tmp_path / "fifo.yaml")


@pytest.mark.parametrize(("name", "text", "said"), [
    ("s.toml", '[[turns]]\ntext = "hi"\n', "s.toml: a scenario file is YAML, not TOML"),
    ("s.yaml", "turns:\n  - text: a\n---\nturns: []\n",
     "s.yaml:3:1: a scenario file holds one YAML document, found 2"),
    ("d.yaml/", None, "(a scenario file is a .yaml or .yml file)"),
])
def test_a_scenario_file_is_not_called_a_config_nor_read_as_toml(
        tmp_path: Path, name: str, text: str | None, said: str) -> None:
    """A TOML scenario was "invalid YAML: did not find expected <document start>", and the
    problems said "a config file" or offered .toml."""
    path = tmp_path / name
    if text is None:
        path.mkdir()
    else:
        path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_scenario(path)
    assert said in str(caught.value)


def test_a_scenario_regex_matches_in_linear_time() -> None:
    exp = parse_scenario("turns:\n  - tool_calls: [{tool: t}]\n  - text: ok\n"
                         "    expect_results:\n      - {matches: '^(a+)+$'}\n"
                         ).turns[1].expect_results[0]
    assert exp.matches is not None and not exp.matches.search("a" * 100_000 + "!")


@pytest.mark.parametrize("value", ["-1", "601", "true", "'5'", "[1]", "{s: 1}"])
def test_a_delay_is_a_bounded_number_of_seconds(value: str) -> None:
    problems = _problems(f"turns:\n  - text: hi\n    delay: {value}\n")
    assert any("turns[0].delay: must be a number of seconds from 0 to 600" in p
               for p in problems), problems


def test_a_delay_is_kept_on_its_turn() -> None:
    from toolhost.scripted.scenario import parse_scenario

    scenario = parse_scenario("turns:\n  - text: hi\n    delay: 1.5\n  - text: bye\n",
                              "s.yaml")
    assert [t.delay for t in scenario.turns] == [1.5, 0.0]
