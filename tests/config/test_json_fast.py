"""The JSON fast path builds exactly what the YAML reader builds, or leaves the text to it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.config.json_fast import parse_json_fast
from toolhost.config.tree import LazyMarks
from toolhost.config.yaml_source import parse_yaml
from toolhost.errors import Problem


def both(text: str) -> tuple[Any, Any, list[Problem]]:
    found: list[Problem] = []
    return parse_json_fast(text, "api.json", "openapi"), \
        parse_yaml(text, "api.json", "openapi", found), found


def same(text: str) -> None:
    """The fast doc, when there is one, is the YAML reader's (data, types, every mark)."""
    fast, slow, found = both(text)
    if fast is None:
        return
    assert slow is not None and found == [], found
    assert repr(fast.data) == repr(slow.data)  # (repr: 1 and 1.0, -0.0 and 0.0 differ)
    assert isinstance(fast.marks, LazyMarks) and not fast.marks.scanned
    assert fast.marks.count == len(slow.marks)
    assert dict(fast.marks) == dict(slow.marks)


ACCEPTED = {
    "pretty": json.dumps({"a": [1, -2, 2.5, -0.0, 1e-5, True, None], "b": {"c": "d"}},
                         indent=2),
    "tabs": '{\n\t"a"\t:\t1,\n\t"b": [1,\t2]\n}',
    "compact": '{"a":1,"b":{"c":[1,2,"x"]},"e":{},"f":[]}',
    "numbers": '{"a": [1E5, 1.0e5, -1.5E-3, 0e0, -0, 2.5e+3, 123456789012345678901234567890]}',
    "escapes": '{"k\\"ey": "\\/ \\b\\f\\n\\r\\t \\u0000 \\u00e9 \\\\", "é": "ü"}',
    "yaml-looking strings": '{"<<": "*x", "a: b": "- c", "#": "&y !z %w @v `u ? q | > {,}"}',
    "yaml words": '{"on": "yes", "null": "~", "y": ["NO", "Off", "1_000", "0x1F", "1:20"]}',
    "line ends": '{"a": 1,\r\n "b": 2,\r "c": [\n\n 3\n]\n}',
    "long values": '{"a": "' + "v" * 5000 + '", "' + "k" * 150 + '": 1}',
    "astral": '{"a": "\U0001F600", "b": "\u00a0x"}',
    # a quote before a long run of blanks and line breaks: checked in one pass (the key
    # check was quadratic in the run: ~1,000 s for these, a hang)
    "runs of blanks": '{"a": "x"' + "\n" * 1_000_000 + ', "b": "y"' + " " * 1_000_000 + "}",
}


@pytest.mark.parametrize("text", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_a_json_object_takes_the_fast_path_and_reads_as_yaml_reads_it(text: str) -> None:
    assert parse_json_fast(text, "api.json", "openapi") is not None
    same(text)


DEEP = 101  # one past the default nesting limit
REFUSED = {
    "duplicate key": '{"a": 1, "b": {"c": 1, "c": 2}}',
    "NaN": '{"a": NaN}',
    "Infinity": '{"a": [-Infinity]}',
    "float out of range": '{"a": 1e400}',
    "float underflow": '{"a": 1e-400}',
    "long integer": '{"a": ' + "9" * 5000 + "}",
    "escaped lone surrogate": '{"a": "\\ud800"}',
    "escaped surrogate pair": '{"a": "\\ud83d\\ude00"}',
    "DEL": '{"a": "\x7f"}',
    "C1 control": '{"a": "\x80"}',
    "NEL": '{"a": "\x85"}',
    "line separator": '{"a": "\u2028"}',
    "noncharacter": '{"a": "\ufffe"}',
    "raw lone surrogate": '{"a": "\ud800"}',
    "key over 1,024": '{"' + "k" * 1100 + '": 1}',
    "escaped key over 1,024": '{"' + "\\u0041" * 180 + '": 1}',
    "key then a line break": '{"a"\n: 1}',
    "key then blanks and line breaks": '{"a" \t\r\n \n\t: 1}',
    "key then blanks": '{"a"' + " " * 1100 + ": 1}",
    "deep mappings": '{"a": ' * DEEP + "1" + "}" * DEEP,
    "deep lists": '{"a": ' + "[" * DEEP + "]" * DEEP + "}",
    "past the parser's recursion": '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "syntax error": '{"a": 1,}',
    "a comment": '{"a": 1} # x',
    "a byte order mark": '\ufeff{"a": 1}',
    "a list": '[{"openapi": "3.1.0"}]',
    "YAML": 'openapi: "3.1.0"',
    "no-break space as a blank": '{"a":\u00a01}',
    "unclosed": '{"a": [1, 2',
}


@pytest.mark.parametrize("text", REFUSED.values(), ids=REFUSED.keys())
def test_what_the_fast_path_cannot_prove_is_left_to_the_yaml_reader(text: str) -> None:
    assert parse_json_fast(text, "api.json", "openapi") is None


def test_the_values_limit_is_the_yaml_readers(monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps({"a": [1, 2, {"b": "c"}]})  # root, a, list, 1, 2, map, b, c: 8 values
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_VALUES", "8")
    assert parse_json_fast(text, "api.json", "openapi") is not None
    same(text)
    monkeypatch.setenv("TOOLHOST_MAX_CONFIG_VALUES", "7")
    assert parse_json_fast(text, "api.json", "openapi") is None
    found: list[Problem] = []
    parse_yaml(text, "api.json", "openapi", found)
    assert [p.message for p in found] == [
        "more than 7 values (scalars, keys, lists, mappings) in one file"]


def test_the_nesting_limit_is_the_yaml_readers() -> None:
    at_limit = '{"a": ' * 99 + "[]" + "}" * 99  # 100 collections deep: the default limit
    assert parse_json_fast(at_limit, "api.json", "openapi") is not None
    same(at_limit)


# any text, and text of characters YAML allows (so that most objects take the fast path)
_TEXT = st.one_of(st.text(max_size=12), st.text(st.characters(
    exclude_categories=("Cs", "Cc", "Cn", "Zl", "Zp")), max_size=12))
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30),
                     st.floats(allow_nan=False, allow_infinity=False), _TEXT)
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(_TEXT, inner, max_size=4)),
    max_leaves=20)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(_TEXT, _VALUES, max_size=4),
       st.sampled_from([None, 0, 1, "\t"]), st.booleans())
def test_any_json_object_reads_as_the_yaml_reader_reads_it_or_is_left_to_it(
        data: dict[str, Any], indent: int | str | None, ascii_only: bool) -> None:
    same(json.dumps(data, indent=indent, ensure_ascii=ascii_only))
