"""Anchors and merge keys used honestly keep working; used as bombs, they stop at a limit."""

from __future__ import annotations

import pytest

from toolhost.config.toml_source import parse_toml
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import Problem


def _yaml(text: str) -> tuple[object, list[Problem]]:
    problems: list[Problem] = []
    doc = parse_yaml(text, "c.yaml", "project", problems)
    return (doc.data if doc else None), problems


def test_merge_keys_written_keys_win_then_earlier_merges() -> None:
    data, problems = _yaml("base: &b {x: 1, y: 2}\nother: &o {y: 3, z: 4}\n"
                           "t:\n  <<: [*b, *o]\n  x: 9\n")
    assert problems == []
    assert data["t"] == {"x": 9, "y": 2, "z": 4}  # type: ignore[index]


def test_a_merged_key_is_marked_where_the_mapping_uses_it() -> None:
    problems: list[Problem] = []
    doc = parse_yaml("base: &b {x: 1}\nt:\n  <<: *b\n  y: 2\n", "c.yaml", "project", problems)
    assert doc is not None and doc.data["t"] == {"y": 2, "x": 1}
    assert doc.marks[("t", "y")].line == 4


def test_aliases_reused_within_the_limit_load() -> None:
    data, problems = _yaml("a: &a [1, 2, 3]\nb: [" + ", ".join(["*a"] * 1000) + "]\n")
    assert problems == [] and len(data["b"]) == 1000  # type: ignore[index]


def test_an_alias_bomb_stops_at_the_first_node_over_the_limit() -> None:
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]\n" for p, c in zip("abcdefgh", "bcdefghi",
                                                                strict=True))
    data, problems = _yaml(text)
    assert data is None or isinstance(data, dict)
    assert len(problems) == 1
    assert "YAML aliases expand to more than 100,000 nodes" in problems[0].message


@pytest.mark.parametrize("item", ["&a{} 1", "&a{} [1]", "&a{} {{k: 1}}", "{{&a{} k: 1}}"])
def test_anchors_past_their_limit_stop_at_the_first_one_over(
        item: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # each anchor keeps its event for aliases: 499,000 took 378 MB and 2.5 s
    monkeypatch.setenv("TOOLHOST_MAX_YAML_ANCHORS", "3")
    _, problems = _yaml("x: [" + ", ".join(item.format(i) for i in range(3)) + "]\n")
    assert problems == []
    _, problems = _yaml("x: [" + ", ".join(item.format(i) for i in range(5)) + "]\n")
    column = 5 + len(", ".join(item.format(i) for i in range(3))) + 2
    column += item.format(3).index("&")
    assert [str(p) for p in problems] == [
        f"c.yaml:1:{column}: more than 3 YAML anchors (&name) (raise TOOLHOST_MAX_YAML_ANCHORS "
        "if this is meant)"]


def test_a_merge_of_the_mapping_itself_is_a_located_error() -> None:
    _, problems = _yaml("a: &a\n  <<: *a\n")
    assert [str(p) for p in problems] == ["c.yaml:1:4: a: recursive YAML alias"]


def test_non_finite_floats_are_refused_in_both_grammars() -> None:
    _, problems = _yaml("t: .inf\nu: -.Inf\nv: .NaN\nw: 1.5\n")
    assert [p.key_path for p in problems] == ["t", "u", "v"]
    toml_problems: list[Problem] = []
    assert parse_toml("t = inf\nw = 1.5\nv = -nan\n", "c.toml", "project", toml_problems) is None
    assert [(p.key_path, p.line) for p in toml_problems] == [("t", 1), ("v", 3)]


def test_a_toml_bracket_inside_a_string_is_not_nesting() -> None:
    problems: list[Problem] = []
    doc = parse_toml("x = '" + "[" * 500 + "'\ny = \"\\\"[[[\"\n", "c.toml", "project", problems)
    assert problems == [] and doc is not None and doc.data["x"] == "[" * 500


def test_deep_flow_nesting_after_a_long_file_is_found_where_it_passes_the_limit() -> None:
    import pytest
    import yaml

    # past the one-pass threshold, so the event prescan runs and libyaml stops at 1,000 levels;
    # the pure-Python parser (5 s per MiB) must not be what finds it
    keys = "".join(f"k{i}: {i}\n" for i in range(60_000))
    text = "toolhost: 1\n" + keys + "y:\n  z: " + "[" * 1100 + "]" * 1100 + "\n"
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(yaml, "SafeLoader", None)  # any use of the pure-Python parser fails
        problems: list[Problem] = []
        assert parse_yaml(text, "f.yaml", "project", problems) is None
    (problem,) = problems
    assert problem.message == "nested more than 100 mappings or lists deep"
    # depth 2 at the line's start (the root mapping and y's): the 99th bracket is the 101st level
    assert (problem.line, problem.column) == (60_003, 6 + 98)  # "[" no. 1 is column 6
    # and the key path of that bracket (libyaml's stop is past it: the text up to it is read
    # again), its middle left out: one word, as every key path is
    assert problem.key_path.startswith("y.z[0][0][0]") and problem.key_path.endswith("…[0]")
    assert " " not in problem.key_path


def test_a_raised_depth_limit_stops_where_the_parsers_stack_would() -> None:
    import pytest

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TOOLHOST_MAX_CONFIG_DEPTH", "100000")
        problems: list[Problem] = []
        deep = 10_000
        assert parse_toml("x = " + "[" * deep + "]" * deep, "f.toml", "p", problems) is None
        assert problems[0].message.startswith("nested more than 300 ")


@pytest.mark.parametrize("spelling", ["*m{p}", "[*m{p}]"])
def test_a_chain_of_merge_keys_stops_at_the_depth_limit(spelling: str) -> None:
    # each mapping merges the one before: the reading nests once per link, the path never
    # grows (3,000 links were a RecursionError, an internal error)
    text = "m0: &m0 {k0: 1}\n" + "".join(
        f"m{i}: &m{i} {{<<: {spelling.format(p=i - 1)}, k{i}: 1}}\n" for i in range(1, 3000))
    _, problems = _yaml(text)
    assert len(problems) == 1
    assert "nested more than 100 levels deep (through merge keys)" in problems[0].message
    assert problems[0].key_path == "m99.k0" and problems[0].line == 1


def test_a_short_chain_of_merge_keys_merges_every_link() -> None:
    text = "m0: &m0 {k0: 1}\n" + "".join(
        f"m{i}: &m{i} {{<<: *m{i - 1}, k{i}: 1}}\n" for i in range(1, 60))
    data, problems = _yaml(text)
    assert problems == [] and len(data["m59"]) == 60  # type: ignore[index]
