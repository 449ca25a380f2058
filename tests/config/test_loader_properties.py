"""Property tests of the YAML and TOML sources: whatever the text, the answer is a correct load
or located problems, never an exception, and a load round-trips what was written.

Derandomised when CI is set (the same examples every run); a local run explores anew."""

from __future__ import annotations

import json
import math
import os
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolhost.config.toml_source import parse_toml
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import Problem

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=150,
                          suppress_health_check=[HealthCheck.too_slow])
PROFILE = "ci" if os.environ.get("CI") else "dev"

# Text with the characters that matter to the grammars, in heavy doses.
_ALPHABET = st.sampled_from(list("[]{}:,-'\"#&*!<>|?%@`=.\\ \n\t\r0123456789aeftnulx_\x00\ufeff"
                                 "\ud800\u2028é"))
_TEXT = st.text(_ALPHABET, max_size=300) | st.text(max_size=200)
_KEY = st.text(st.characters(codec="utf-8", exclude_characters="\r"), min_size=1, max_size=12)
_SCALAR = (st.none() | st.booleans() | st.integers() | st.text(max_size=20)
           | st.floats(allow_nan=False, allow_infinity=False))
_DATA = st.recursive(_SCALAR, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(_KEY, inner, max_size=4), max_leaves=20)


def _located(problems: list[Problem], file: str) -> None:
    for problem in problems:
        assert problem.file == file
        assert problem.message and "\n" not in str(problem)
        assert len(str(problem)) < 2000


@settings(settings.get_profile(PROFILE))
@given(_TEXT)
def test_any_yaml_text_loads_or_gives_located_problems(text: str) -> None:
    problems: list[Problem] = []
    doc = parse_yaml(text, "p.yaml", "project", problems)
    _located(problems, "p.yaml")
    if doc is not None and not problems:
        json.dumps(doc.data, allow_nan=False)  # what loads is JSON-like and finite


@settings(settings.get_profile(PROFILE))
@given(_TEXT)
def test_any_toml_text_loads_or_gives_located_problems(text: str) -> None:
    problems: list[Problem] = []
    doc = parse_toml(text, "p.toml", "project", problems)
    _located(problems, "p.toml")
    if doc is not None:
        assert not problems
        json.dumps(doc.data, allow_nan=False)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b) or a == b
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@settings(settings.get_profile(PROFILE))
@given(st.dictionaries(_KEY, _DATA, max_size=5))
@example({"0": "\x85"})  # found by Hypothesis: YAML 1.1 reads a raw NEL as a line break
@example({"k": "a\u2028b"})
@example({"0": 5e-324, "1": 1e22, "2": -2.5e-7})  # found by Hypothesis: YAML 1.1 read "1e+22"
def test_json_written_as_yaml_loads_back_the_same(data: dict[str, Any]) -> None:
    text = json.dumps(data, ensure_ascii=False)  # JSON is YAML (flow style)
    problems: list[Problem] = []
    doc = parse_yaml(text, "p.yaml", "project", problems)
    if problems:  # only what YAML itself forbids in a file: control characters
        _located(problems, "p.yaml")
        assert any("control character" in p.message or "invalid YAML" in p.message
                   for p in problems), problems
        return
    assert doc is not None and _same(data, doc.data)
