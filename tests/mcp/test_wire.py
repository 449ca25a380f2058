"""Bounded decoding and always-valid encoding (toolhost/mcp/wire.py), and the limits value."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.limits import DEFAULT_LIMITS, Limits, parse_size
from toolhost.mcp import jsonrpc as rpc
from toolhost.mcp.wire import WireError, check_depth, decode, encode, encode_answer


def nested(depth: int, open_: str = "[", close: str = "]") -> bytes:
    return (open_ * depth + close * depth).encode()


def test_depth_at_the_limit_is_accepted_one_more_is_refused() -> None:
    check_depth(nested(256), 256)
    with pytest.raises(WireError) as caught:
        check_depth(nested(257), 256)
    assert caught.value.code == rpc.INVALID_REQUEST
    assert "257 levels deep; the limit is 256" in caught.value.message


def test_a_hundred_thousand_levels_is_an_answer_not_a_recursion_error() -> None:
    with pytest.raises(WireError) as caught:
        decode(nested(100_000))
    assert "100,000 levels" in caught.value.message
    objects = b'{"a":' * 50_000 + b"1" + b"}" * 50_000
    with pytest.raises(WireError):
        decode(objects)


def test_brackets_inside_strings_do_not_count() -> None:
    text = json.dumps({"s": "[" * 10_000, "t": "{\\\"[[[" * 1000, "u": ["\\"] * 3}).encode()
    check_depth(text, 3)
    assert decode(text, Limits(max_depth=3))["s"] == "[" * 10_000


def test_many_shallow_brackets_take_the_careful_path_and_pass() -> None:
    wide = json.dumps({"a": [[1, 2]] * 50_000}).encode()
    check_depth(wide, 3)  # 100,001 brackets, but only three deep
    with pytest.raises(WireError):
        check_depth(wide, 2)


def test_unterminated_strings_full_of_escapes_scan_in_linear_time() -> None:
    # A regex with alternatives would go quadratic on this: the scan must not.
    hostile = b'["' + b'\\"[' * 400_000
    with pytest.raises(WireError) as caught:
        decode(hostile)
    assert caught.value.code in (rpc.PARSE_ERROR, rpc.INVALID_REQUEST)


@pytest.mark.parametrize("unit", [b"{},", b"[],", b'"ab",', b"1,", b'{"a":1},'])
def test_too_many_values_are_refused_before_parsing(unit: bytes) -> None:
    data = b"[" + unit * 400_000 + b"1]"
    with pytest.raises(WireError) as caught:
        decode(data, Limits(max_values=100_000))
    assert "JSON values; the limit is 100,000" in caught.value.message
    assert decode(b"[" + unit * 1000 + b"1]", Limits(max_values=100_000))[-1] == 1


def test_commas_inside_strings_are_not_values() -> None:
    data = json.dumps(["," * 500_000, "a,b"]).encode()
    assert len(decode(data, Limits(max_values=10))) == 2


def test_size_limit_is_checked_before_parsing() -> None:
    with pytest.raises(WireError) as caught:
        decode(b'"' + b"x" * 2000 + b'"', Limits(max_message_bytes=1000))
    assert "2,002 bytes; the limit is 1,000" in caught.value.message


@pytest.mark.parametrize("text", [b"NaN", b"[Infinity]", b"-Infinity", b"1e999", b"[-1e400]"])
def test_non_finite_numbers_are_parse_errors(text: bytes) -> None:
    with pytest.raises(WireError) as caught:
        decode(text)
    assert caught.value.code == rpc.PARSE_ERROR


@pytest.mark.parametrize("number", [b"9" * 5000, b"-" + b"1" * 4301])
def test_an_integer_past_pythons_digit_limit_is_named_not_pythons_advice(number: bytes) -> None:
    # the message said "use sys.set_int_max_str_digits() to increase the limit" to the client
    with pytest.raises(WireError) as caught:
        decode(b'{"jsonrpc": "2.0", "id": ' + number + b', "method": "ping"}')
    assert caught.value.code == rpc.PARSE_ERROR
    assert caught.value.message == "Parse error: an integer of more than 4,300 digits"


def test_parse_errors_are_short_and_located() -> None:
    with pytest.raises(WireError) as caught:
        decode(b'{"id": 1,' + b" " * 10)
    assert caught.value.message.startswith("Parse error: ")
    assert "column" in caught.value.message
    with pytest.raises(WireError):
        decode(b"\xff\xfe")  # not UTF-8
    with pytest.raises(WireError):
        decode(b"1" * 5000)  # more digits than Python converts


def test_encode_keeps_a_lone_surrogate_escaped_and_refuses_nan() -> None:
    message = decode(b'{"id": "\\ud800", "x": 1}')
    assert json.loads(encode(message)) == message
    with pytest.raises(ValueError):
        encode({"x": float("nan")})
    answer = json.loads(encode_answer({"jsonrpc": "2.0", "id": 4, "result": {"x": {1, 2}}}))
    assert answer["id"] == 4 and answer["error"]["code"] == rpc.INTERNAL_ERROR


@pytest.mark.parametrize("value,valid", [
    ("a", True), (0, True), (-5, True), (1.5, True), (True, False), (False, False),
    (None, False), ({}, False), ([], False), (float("inf"), False), (float("nan"), False)])
def test_request_ids(value: object, valid: bool) -> None:
    assert rpc.is_valid_id(value) is valid


def test_limits_are_validated_and_replaced() -> None:
    assert DEFAULT_LIMITS.max_message_bytes == 32 * 1024 * 1024
    assert DEFAULT_LIMITS.replace(max_depth=5, body_timeout=None).max_depth == 5
    for bad in (0, -1, float("inf"), True, "3"):
        with pytest.raises(ValueError):
            Limits(max_depth=bad)  # type: ignore[arg-type]
    assert parse_size("32MiB") == 32 * 1024 * 1024
    assert parse_size("512k") == 512 * 1024
    assert parse_size("1048576") == 1048576
    for bad in ("", "lots", "0", "5 TB", "-1"):
        with pytest.raises(ValueError):
            parse_size(bad)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=40)


@given(json_values)
def test_property_decode_agrees_with_json_within_the_limits(value: object) -> None:
    text = json.dumps(value).encode()
    assert decode(text) == json.loads(text)
    assert decode(encode(value)) == value


@given(st.binary(max_size=400) | st.text(alphabet='[]{}"\\:,1a ', max_size=400).map(str.encode))
def test_property_any_bytes_give_a_value_or_a_wire_error(data: bytes) -> None:
    try:
        decode(data, Limits(max_depth=8))
    except WireError as exc:
        assert exc.code in (rpc.PARSE_ERROR, rpc.INVALID_REQUEST)
        assert len(exc.message) < 400


def depth_of(value: object) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


tricky_text = st.text(alphabet='[]{}"\\ab', max_size=8)
nested_values = st.recursive(
    st.none() | st.integers() | tricky_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(tricky_text, inner, max_size=3),
    max_leaves=60)


@given(nested_values, st.integers(min_value=0, max_value=12))
def test_property_the_depth_scan_is_exact_on_valid_json(value: object, limit: int) -> None:
    # Strings full of brackets, quotes and backslashes must not fool the scan.
    text = json.dumps(value).encode()
    if depth_of(value) > limit:
        with pytest.raises(WireError):
            check_depth(text, limit)
    else:
        check_depth(text, limit)
