"""The orjson shortcut (toolhost/jsonfast.py) gives exactly the standard library's JSON, or
steps aside: the wire's parse, the control session's answer lines and the audit lines read
the same values with and without it, types included (an integer past 64 bits stays an exact
integer, never a float)."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost import jsonfast
from toolhost.mcp import wire
from toolhost.permissions.audit import AuditLog
from toolhost.permissions.decision import Decision
from toolhost.permissions.sameness import same_json
from toolhost.protocol.framing import encode_line

needs_orjson = pytest.mark.skipif(not jsonfast.AVAILABLE, reason="orjson is not installed")


def _pure(data: bytes) -> Any:
    return jsonfast.NOT_FAST


@pytest.fixture(params=["fast", "pure"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test runs with the shortcut (where orjson is installed) and without it."""
    if request.param == "pure":
        monkeypatch.setattr(jsonfast, "loads", _pure)
        monkeypatch.setattr(jsonfast, "dumps", lambda value, newline=False: jsonfast.NOT_FAST)
    yield request.param


def exactly(a: Any, b: Any) -> bool:
    """The same JSON value, types included (``1`` is not ``1.0``, nor ``True``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(exactly(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(exactly(x, y) for x, y in zip(a, b, strict=True))
    return a == b or (a != a and b != b)


# What the two parsers read differently, or one refuses: each must come out as json.loads
# reads it (or be refused by the wire exactly as before).
TEXTS = [
    b'{"n": 123456789012345678901234567890}',
    b'{"n": -9223372036854775809}',
    b'{"n": 18446744073709551616}',
    b'{"n": 9223372036854775807, "m": -9223372036854775808}',
    b'[1234567890123456789]',
    b'{"id": "1234567890123456789012"}',
    b'[1e308, 5e-324, -0.0, 0.1, 1E5, 1e-400]',
    b'"\\ud800"',
    b'"\\udc00\\ud800"',
    b'{"a": 1, "a": 2}',
    b'\xef\xbb\xbf{"bom": true}',
    b'{"t": "caf\xc3\xa9 \\u00e9 \\ud83d\\ude00"}',
    b'{"x": "\\u0000\\n\\t"}',
    b' [ 1 , 2 ] ',
    b'[' + b'9' * 4000 + b']',
]
REFUSED = [b'NaN', b'[Infinity]', b'[-Infinity]', b'[1e400]', b'"\xff"', b'"\xed\xa0\x80"',
           b'{"a":}', b'[1,]', b'01', b'"a\x01b"', b'[' + b'9' * 5000 + b']', b'{}x']


@pytest.mark.parametrize("text", TEXTS)
def test_the_wire_reads_what_json_loads_reads(backend: str, text: bytes) -> None:
    expected = json.loads(text)
    assert exactly(wire.decode(text), expected)
    fast = jsonfast.loads(text)
    assert fast is jsonfast.NOT_FAST or exactly(fast, expected)


@pytest.mark.parametrize("text", REFUSED)
def test_the_wire_refuses_the_same_texts_with_the_same_errors(backend: str, text: bytes,
                                                              monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    with pytest.raises(wire.WireError) as got:
        wire.decode(text)
    monkeypatch.setattr(jsonfast, "loads", _pure)
    with pytest.raises(wire.WireError) as standard:
        wire.decode(text)
    assert (got.value.code, got.value.message) == (standard.value.code, standard.value.message)


@needs_orjson
def test_long_integers_and_refusals_step_aside() -> None:
    for text in (b'[123456789012345678901]', b'"\\ud800"', b'NaN', b'\xef\xbb\xbf[]'):
        assert jsonfast.loads(text) is jsonfast.NOT_FAST
    assert exactly(jsonfast.loads(b'{"a": [1, 2.5, "x"]}'), {"a": [1, 2.5, "x"]})


@needs_orjson
@pytest.mark.parametrize(("text", "fast"), [
    (b"123456789012345678", True),  # 18 digits: fits 64 bits, orjson reads it
    (b"1234567890123456789", False),  # a run of 19 at the very start of the text
    (b"[1, 1234567890123456789]", False),  # at the very end but a bracket
    (b'{"a": "x1234567890123456789"}', False),  # in a string too: only the slower path
    (b"[-999999999999999999, 12345678901234567.5]", True),  # 18 and 17+1: short runs
])
def test_a_run_of_19_digits_anywhere_takes_the_standard_path(text: bytes, fast: bool) -> None:
    got = jsonfast.loads(text)
    if fast:
        assert exactly(got, json.loads(text))
    else:
        assert got is jsonfast.NOT_FAST


class Color(enum.IntEnum):
    RED = 1


@dataclasses.dataclass
class Point:
    x: int


class Text(str):
    pass


# What orjson would encode differently from the standard library, or not at all: each goes
# the standard way (or fails as it did).
ODD_VALUES: list[Any] = [
    {"n": 2 ** 64}, {"n": -(2 ** 63) - 1}, {1: "int key"}, {"s": "\ud800"}, [Color.RED],
    {"t": Text("sub")}, [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]],
]


@pytest.mark.parametrize("value", ODD_VALUES, ids=repr)
def test_answer_lines_of_odd_values_are_the_standard_ones(backend: str, value: Any) -> None:
    line = encode_line(value)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    standard = json.dumps(value, separators=(",", ":"))
    assert exactly(json.loads(line), json.loads(standard))


@needs_orjson
@pytest.mark.parametrize("value", [Point(1), datetime.datetime(2026, 1, 1), Text("x"),
                                   {"d": {1: 2}}, 2 ** 70, "\udfff"])
def test_what_orjson_would_encode_its_own_way_is_left_to_the_standard_library(value: Any
                                                                              ) -> None:
    assert jsonfast.dumps(value) is jsonfast.NOT_FAST


def test_an_answer_of_what_json_cannot_hold_still_fails(backend: str) -> None:
    with pytest.raises(TypeError):
        encode_line({"x": Point(1)})
    with pytest.raises(TypeError):
        encode_line({"x": object()})


def test_audit_lines_are_the_same_json_both_ways(backend: str, tmp_path: Path) -> None:
    log = AuditLog(str(tmp_path / "audit.jsonl"))
    args = {"sql": "select 1", "n": 2 ** 70, "s": "\ud800 caf\u00e9", "p": Point(3)}
    log.record("mcp__db__query", args, Decision("deny", "no", rule="r", answered_by="policy"),
               tool_use_id="toolu_1")
    log.close()
    line = (tmp_path / "audit.jsonl").read_bytes()
    line.decode("utf-8")  # valid UTF-8, the lone surrogate escaped
    entry = json.loads(line)
    assert entry["arguments"] == {"sql": "select 1", "n": 2 ** 70, "s": "\ud800 caf\u00e9",
                                  "p": "Point(x=3)"}
    assert type(entry["arguments"]["n"]) is int
    assert entry["decision"] == "deny" and entry["tool_use_id"] == "toolu_1"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2 ** 60, max_value=2 ** 70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=40)


@given(json_values, st.booleans())
def test_property_the_shortcut_reads_what_json_loads_reads(value: Any, ascii_only: bool
                                                           ) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    expected = json.loads(text) if ascii_only else None
    if not ascii_only:
        try:
            expected = json.loads(text.decode("utf-8"))
        except UnicodeDecodeError:  # a lone surrogate written raw: not UTF-8, refused
            assert jsonfast.loads(text) is jsonfast.NOT_FAST
            return
    fast = jsonfast.loads(text)
    assert fast is jsonfast.NOT_FAST or exactly(fast, expected)
    assert exactly(wire.decode(text), expected)


@given(json_values)
def test_property_the_shortcut_writes_the_same_json(value: Any) -> None:
    data = jsonfast.dumps(value, newline=True)
    standard = json.loads(json.dumps(value))
    if data is not jsonfast.NOT_FAST:
        assert data.endswith(b"\n")
        assert exactly(json.loads(data.decode("utf-8")), standard)
    line = encode_line(value)
    assert exactly(json.loads(line.decode("utf-8")), standard)
    assert same_json(json.loads(line), standard)
