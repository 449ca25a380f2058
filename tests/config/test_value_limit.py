"""A file under the size limit may still hold millions of values, each a few hundred bytes
once parsed: the number of values per file is bounded, counted before anything is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.inproc import run_cli
from toolhost.config.limits import LIMITS, toml_depth, toml_prescan
from toolhost.config.toml_source import parse_toml
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import Problem

LIMIT = 1000


@pytest.fixture(autouse=True)
def _small_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_VALUES", str(LIMIT))


def _parse(text: str, kind: str) -> list[Problem]:
    problems: list[Problem] = []
    parse = parse_yaml if kind == "yaml" else parse_toml
    parse(text, f"c.{kind}", "project", problems)
    return problems


YAML_FLOODS = {
    "flow items": "toolhost: 1\nx: [" + "1," * LIMIT + "]\n",
    "empty lists": "toolhost: 1\nx: [" + "[]," * LIMIT + "]\n",
    "empty mappings": "toolhost: 1\nx: [" + "{}," * LIMIT + "]\n",
    "null-valued keys": "toolhost: 1\nx: {" + ",".join(f"k{i}" for i in range(LIMIT)) + "}\n",
    "block items": "toolhost: 1\nx:\n" + "- 1\n" * LIMIT,
    "block keys": "toolhost: 1\n" + "".join(f"k{i}: {i}\n" for i in range(LIMIT)),
    "aliases": "toolhost: 1\na: &a 1\nx: [" + "*a," * LIMIT + "]\n",
    "padded": "toolhost: 1\n" + "#" * 10 * LIMIT + "\nx: [" + "1," * LIMIT + "]\n",
}

TOML_FLOODS = {
    "array items": "toolhost = 1\nx = [" + "1," * LIMIT + "]\n",
    "empty arrays": "toolhost = 1\nx = [" + "[]," * LIMIT + "]\n",
    "inline tables": "toolhost = 1\nx = [" + "{}," * LIMIT + "]\n",
    "keys": "toolhost = 1\n" + "".join(f"k{i} = {i}\n" for i in range(LIMIT)),
    "array of tables": "toolhost = 1\n" + "[[x]]\n" * LIMIT,
    "inline keys": "toolhost = 1\nx = {" + ", ".join(f"k{i} = 1" for i in range(LIMIT)) + "}\n",
    # each part of a dotted header or key is a table tomllib builds (and every prefix of
    # the key a tuple): 50 keys of 41 parts are 2,050 values, not 50
    "dotted headers": "toolhost = 1\n" + "".join(f"[{'a.' * 40}k{i}]\n" for i in range(50)),
    "dotted arrays of tables": "toolhost = 1\n" + "[[x.y.z]]\n" * (LIMIT // 8),
    "dotted keys": "toolhost = 1\n" + "".join(f"{'a.' * 40}k{i} = 1\n" for i in range(50)),
    "dotted inline keys": "toolhost = 1\nx = {" + ", ".join(f"{'a.' * 40}k{i} = 1"
                                                             for i in range(50)) + "}\n",
}


@pytest.mark.parametrize("name", sorted(YAML_FLOODS))
def test_a_yaml_flood_of_values_is_refused_where_it_passes_the_limit(name: str) -> None:
    problems = _parse(YAML_FLOODS[name], "yaml")
    assert len(problems) == 1, problems
    assert problems[0].message == (f"more than {LIMIT:,} values (scalars, keys, lists, "
                                   "mappings) in one file")
    assert problems[0].line >= 2 and "TOOLHOST_MAX_CONFIG_VALUES" in problems[0].hint


@pytest.mark.parametrize("name", sorted(TOML_FLOODS))
def test_a_toml_flood_of_values_is_refused_before_tomllib(name: str) -> None:
    problems = _parse(TOML_FLOODS[name], "toml")
    assert len(problems) == 1, problems
    assert problems[0].message.startswith(f"more than {LIMIT:,} values")
    assert problems[0].line >= 2 and "TOOLHOST_MAX_CONFIG_VALUES" in problems[0].hint


def test_values_within_the_limit_load_in_both_formats() -> None:
    half = LIMIT // 2 - 10
    assert _parse("toolhost: 1\nx: [" + "1, " * half + "]\n", "yaml") == []
    assert _parse("toolhost = 1\nx = [" + "1, " * half + "]\n", "toml") == []
    # commas, '=' and brackets inside strings and comments are not values
    text = 'toolhost = 1\nx = "' + ",=[{" * LIMIT + '"  # ' + ",=" * LIMIT + "\n"
    assert _parse(text, "toml") == []


def test_a_text_shorter_than_the_limit_is_not_counted() -> None:
    # one character at least per value: the short text cannot hold more, and is not scanned
    assert toml_prescan("x = [1,2,3]", 100, 12) == (-1, "")  # 11 characters
    assert toml_prescan("x = [1,2,3]", 100, 4) == (-1, "")  # '=', '[', two ','
    assert toml_prescan("x = [1,2,3]", 100, 3) == (8, "values")
    assert toml_depth("x = [[[1]]]", 2) == toml_prescan("x = [[[1]]]", 2, 10**9)[0] == 6


def test_the_limit_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert LIMITS.values == LIMIT
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_VALUES", str(10 * LIMIT))
    assert _parse(YAML_FLOODS["flow items"], "yaml") == []
    monkeypatch.delenv("TOOLHOST_MAX_CONFIG_VALUES")
    assert LIMITS.values == 500_000


def test_the_red_team_shape_in_a_real_process(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TOOLHOST_MAX_CONFIG_VALUES")  # the default limit
    configs = []
    for name, text in (("flood.yaml", "toolhost: 1\nx: [" + "1," * 600_000 + "]\n"),
                       ("flood.toml", "toolhost = 1\nx = [" + "[]," * 600_000 + "]\n")):
        configs.append(tmp_path / name)
        configs[-1].write_text(text)
    # one process reads both (validate takes several files): each its own located line
    proc = run_cli(["validate", "--no-compile", *map(str, configs)])
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 2, proc.stderr
    for config, line in zip(configs, lines, strict=True):
        assert line.startswith(f"{config}:2:"), proc.stderr
        assert "more than 500,000 values" in line and "internal error" not in line
