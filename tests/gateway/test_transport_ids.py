"""The id of an upstream's answer is found however the answer is written, so a broken one
fails its request at once: where the JSON parser can read the line, the regex scan used when
it cannot agrees with it."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import mcp_types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolhost.gateway import transport
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


class _Spans:
    """A compiled pattern of the transport, recording how much of the line each of its calls
    reads (a regex call holds the GIL from start to end: the host's event loop, in another
    thread, waits that long)."""

    def __init__(self, pattern: re.Pattern[bytes], spans: list[int]) -> None:
        self.pattern, self.spans = pattern, spans

    def _note(self, found: re.Match[bytes] | None, pos: int) -> re.Match[bytes] | None:
        if found is not None:
            self.spans.append(found.end() - pos)
        return found

    def match(self, line: bytes, pos: int = 0, *args: int) -> re.Match[bytes] | None:
        return self._note(self.pattern.match(line, pos, *args), pos)

    def search(self, line: bytes, pos: int = 0, *args: int) -> re.Match[bytes] | None:
        endpos = args[0] if args else len(line)
        found = self.pattern.search(line, pos, *args)
        self.spans.append((found.end() if found else endpos) - pos)
        return found

    def finditer(self, line: bytes, *args: int) -> Iterator[re.Match[bytes]]:
        pos = 0
        for found in self.pattern.finditer(line, *args):
            self.spans.append(found.end() - pos)
            pos = found.end()
            yield found


_BIG = 4_000_000
_HOSTILE = {  # 4 MB answers no JSON parser reads, each with its id last
    "openers in a row": b'{"jsonrpc":"2.0","result":' + b"[" * _BIG + b"]" * _BIG + b',"id":7}',
    "escapes in one string": b'{"jsonrpc":"2.0","result":"' + b"\\n" * _BIG + b'\\q","id":7}',
    "one long string": b'{"jsonrpc":"2.0","result":"' + b"a" * _BIG + b'\\q","id":7}',
    "digits": b'{"jsonrpc":"2.0","result":[' + b"1" * _BIG + b'\\q],"id":7}',
    "brackets and commas": b'{"jsonrpc":"2.0","result":{"a":[' + b"[]," * _BIG + b'"\\q"]},"id":7}',
}


@pytest.mark.parametrize("shape", sorted(_HOSTILE))
def test_the_scan_reads_a_huge_line_in_bounded_steps(shape: str,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Each regex call of the id scan reads at most ~64 KiB, whatever the line: a 15 MB
    unreadable answer with its id last used to hold the GIL (so the host's event loop) for
    seconds in one match. The id is found all the same."""
    spans: list[int] = []
    for name, value in list(vars(transport).items()):
        if isinstance(value, re.Pattern):
            monkeypatch.setattr(transport, name, _Spans(value, spans))
    assert _answer_id(_HOSTILE[shape]) == 7
    assert spans and max(spans) <= 1 << 17


_MANY = 400_000  # values, over transport.MAX_VALUES


@pytest.mark.parametrize("shape", ["a valid answer", "valid JSON, not JSON-RPC"])
def test_an_answer_of_too_many_values_is_refused_unread(shape: str) -> None:
    """Building millions of values held the GIL (so the host) for seconds; such an answer
    fails its request at once instead, in one line."""
    ident = b'{}' if shape != "a valid answer" else b"4"
    line = (b'{"jsonrpc":"2.0","result":{"a":[' + b"[]," * _MANY + b'1]},"id":' + ident
            + b"}")
    if shape != "a valid answer":  # its id, for the scan, comes first
        line = b'{"id":4,' + line[1:]
    wire = transport.Wire("h", 16 << 20)
    listing, call = (mcp_types.JSONRPCRequest(jsonrpc="2.0", id=4, method=method,
                                              params={"name": "t"})
                     for method in ("tools/list", "tools/call"))
    wire.sent(listing)  # a listing's answer is parsed (its tools are bounded one by one)
    assert "refused" not in str(transport._parse(line, wire))
    wire.sent(call)  # a call's answer is cut at 40,000 characters anyway: refused unread
    message = transport._parse(line, wire)
    assert message is not None
    error = message.message
    assert error.id == 4
    assert error.error.message == ("upstream server 'h' sent an answer of more than "
                                   "250,000 JSON values (refused unread)")
    assert not wire.calls  # answered: forgotten


def test_many_commas_inside_strings_are_no_values() -> None:
    text = "a," * _MANY
    line = json.dumps({"jsonrpc": "2.0", "id": 5, "result": {
        "content": [{"type": "text", "text": text}], "x": ["\\\"[{," * 1000]}}).encode()
    message = transport._parse(line, transport.Wire("h", 16 << 20))
    assert message is not None and message.message.id == 5
    assert message.message.result["content"][0]["text"] == text
