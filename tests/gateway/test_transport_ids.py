"""The id of an upstream's answer is found however the answer is written, so a broken one
fails its request at once: where the JSON parser can read the line, the regex scan used when
it cannot agrees with it."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.gateway.transport import _answer_id, _top_level

_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                     st.text(max_size=8))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=30)
_ids = st.one_of(st.integers(), st.text(max_size=10))


@settings(max_examples=300, deadline=None)
@given(ident=_ids, result=_values, extra=st.dictionaries(st.text(max_size=6), _values,
                                                          max_size=3),
       kind=st.sampled_from(["result", "error"]), first=st.booleans(),
       ascii_only=st.booleans())
def test_the_scan_finds_the_id_the_parser_finds(ident: Any, result: Any, extra: dict[str, Any],
                                                kind: str, first: bool,
                                                ascii_only: bool) -> None:
    extra = {k: v for k, v in extra.items() if k not in ("id", "method", "result", "error")}
    body = {kind: result, **extra}
    answer = {"jsonrpc": "2.0", **({"id": ident, **body} if first else {**body, "id": ident})}
    line = json.dumps(answer, ensure_ascii=ascii_only).encode()
    assert _top_level(line)["id"] == ident
    assert _answer_id(line) == ident


@settings(max_examples=100, deadline=None)
@given(ident=_ids, levels=st.integers(1, 5000), cut=st.booleans())
def test_a_line_too_deep_or_cut_short_still_has_its_id(ident: Any, levels: int,
                                                       cut: bool) -> None:
    head = b'{"jsonrpc": "2.0", "id": ' + json.dumps(ident).encode() + b', "result": {"a": '
    line = head + b"[" * levels + (b"" if cut else b"]" * levels + b"}}")
    assert _answer_id(line) == ident


def test_what_is_no_answer_has_no_id() -> None:
    for line in (b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "x": [[[',
                 b'{"jsonrpc": "2.0", "id": 1, "x": [[[',  # neither result nor error
                 b'{"jsonrpc": "2.0", "id": true, "result": [[[',
                 b'{"jsonrpc": "2.0", "id": 1.5, "result": [[[',
                 b'{"jsonrpc": "2.0", "result": {"id": 3, "a": [[[',  # not at the top
                 b'[{"id": 1, "result": 2}'):
        assert _answer_id(line) is None, line
