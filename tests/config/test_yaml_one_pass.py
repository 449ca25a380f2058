"""A YAML file composed once, without the prescan, must load exactly as the checked path
(prescan, compose, walk) loads it: the same data, marks and located problems."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolhost.config import yaml_source
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import Problem

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=300,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=300,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = "ci" if os.environ.get("CI") else "dev"

_ALPHABET = st.sampled_from([*"[]{}:,-'\"#&*!<>|?%@`=.\\ \n\t0123456789abx_",
                             "<<: ", "&a ", "*a", "- ", "  ", "? "])
_TEXT = st.lists(_ALPHABET, max_size=80).map("".join)

DEEP = "a: " + "[" * 101 + "]" * 101 + "\n"
DEEP_IN_KEY = "? " + "[" * 101 + "]" * 101 + "\n: v\n"
DUPLICATE_THEN_DEEP = "a: 1\na: 2\nb: " + "[" * 101 + "]" * 101 + "\n"


def _both(text: str) -> tuple[Any, Any]:
    fast: list[Problem] = []
    checked: list[Problem] = []
    one = parse_yaml(text, "c.yaml", "project", fast)
    two = yaml_source._checked(text, "c.yaml", "project", checked)
    return (one, fast), (two, checked)


@settings(settings.get_profile(PROFILE))
@given(_TEXT)
@example(DEEP)
@example(DEEP_IN_KEY)
@example(DUPLICATE_THEN_DEEP)
@example("base: &b {x: 1}\nt:\n  <<: *b\n  y: 2\n")
@example("a: &a [*a]\n")
@example("a: 1\n---\nb: 2\n")
def test_one_pass_loads_as_the_checked_path(text: str) -> None:
    one, checked = _both(text)
    assert one == checked


def test_a_deep_file_still_gets_the_prescans_located_problem() -> None:
    problems: list[Problem] = []
    assert parse_yaml(DUPLICATE_THEN_DEEP, "c.yaml", "project", problems) is None
    assert [p.message for p in problems] == ["nested more than 100 mappings or lists deep"]
    assert (problems[0].line, problems[0].column) == (3, 103)


def test_more_asterisks_than_the_alias_limit_take_the_checked_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLHOST_MAX_YAML_ALIASES", "2")
    composed: list[str] = []
    real = yaml_source._prescan
    monkeypatch.setattr(yaml_source, "_prescan",
                        lambda text, file: composed.append(text) or real(text, file))
    problems: list[Problem] = []
    text = "a: &a 1\nb: [*a, *a, *a]\n"
    assert parse_yaml(text, "c.yaml", "project", problems) is None
    assert composed == [text]
    assert "more than 2 YAML aliases" in problems[0].message
    composed.clear()
    assert parse_yaml("a: 1 # *\n", "c.yaml", "project", []) is not None
    assert composed == []  # few enough: one pass


def test_this_libyaml_bounds_its_own_nesting() -> None:
    # the one pass relies on it; with a libyaml that does not, every file is prescanned
    assert yaml_source._libyaml_bounds_nesting() is (yaml_source._Base is not
                                                     yaml_source.yaml.SafeLoader)
