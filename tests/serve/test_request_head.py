"""A request head (its line and headers) is bounded before it is parsed: over
``MAX_HEADER_LINES`` headers or ``MAX_HEAD_BYTES`` bytes is answered 431 and the connection
closed, however it arrives (at once: h11 itself only bounds a head still incomplete; in
pieces; pipelined behind another request). Parsing 6,000 headers cost twenty plain requests.
A real ``toolhost serve`` and raw sockets; the count itself, against h11, by Hypothesis."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from urllib.parse import urlsplit

import h11
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.modern import MODERN_META_JSON
from tests.serve.conftest import http_server
from tests.serve.kb_config import KB_HEAD
from tests.serve.raw_http import exchange, status
from toolhost.serve.http_protocol import MAX_HEAD_BYTES, MAX_HEADER_LINES, head_too_large

BODY = (b'{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":'
        + MODERN_META_JSON + b'}}')


@pytest.fixture(scope="module")
def where(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    tmp = tmp_path_factory.mktemp("head")
    (tmp / "kb.yaml").write_text(KB_HEAD + "permissions:\n  default: allow\n")
    argv = [sys.executable, "-m", "toolhost", "serve", str(tmp / "kb.yaml"), "--transport",
            "http", "--port", "0"]
    with http_server(argv, tmp / "server.log") as url:
        parts = urlsplit(url)
        yield parts.hostname or "", parts.port or 0


def head(extra: list[tuple[str, str]], *, close: bool = True) -> bytes:
    lines = [b"POST /mcp HTTP/1.1", b"host: 127.0.0.1", b"content-type: application/json",
             b"mcp-method: tools/list", b"content-length: %d" % len(BODY)]
    if close:
        lines.append(b"connection: close")
    lines += [f"{k}: {v}".encode() for k, v in extra]
    return b"\r\n".join(lines) + b"\r\n\r\n" + BODY


FEW = 5  # the headers every request here has (host, content-type, mcp-method, -length,
#         connection)
CASES = [
    ("100 headers in all", [(f"x-{i}", "a") for i in range(MAX_HEADER_LINES - FEW)], 200),
    ("one more", [(f"x-{i}", "a") for i in range(MAX_HEADER_LINES - FEW + 1)], 431),
    ("6,000 headers", [(f"x-{i}", "a") for i in range(6000)], 431),
    ("a 15 KiB cookie", [("cookie", "c" * 15_000)], 200),
    ("a 17 KiB cookie", [("cookie", "c" * 17_000)], 431),
    ("60 KiB in 90 headers", [(f"x-{i}", "v" * 680) for i in range(90)], 431),
]


@pytest.mark.parametrize("pieces", [1, 4], ids=["at once", "in pieces"])
@pytest.mark.parametrize(("name", "extra", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_request_head_is_bounded(where: tuple[str, int], name: str,
                                   extra: list[tuple[str, str]], expected: int,
                                   pieces: int) -> None:
    answer = exchange(where, head(extra), pieces=pieces)
    if expected == 431 and pieces > 1 and status(answer) == 0:
        return  # refused while it was still arriving: the client saw the connection reset
    assert status(answer) in ((431, 400) if expected == 431 and pieces > 1 else (expected,)), \
        answer[:200]


@pytest.mark.parametrize(("name", "extra", "expected"), CASES[1:3], ids=[c[0] for c in CASES[1:3]])
def test_a_pipelined_head_is_bounded_too(where: tuple[str, int], name: str,
                                         extra: list[tuple[str, str]], expected: int) -> None:
    answer = exchange(where, head([], close=False) + head(extra))
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]  # the first one is answered
    assert b"HTTP/1.1 431 " in answer, answer[-300:]


def test_the_server_still_answers(where: tuple[str, int]) -> None:
    assert status(exchange(where, head([]))) == 200


# names of no header h11 reads the value of (content-length, transfer-encoding, host, ...):
# what is counted is the head's size and lines, not whether its framing is valid
header = st.tuples(st.text("abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=20)
                   .map(lambda name: "x-" + name),
                   st.text("abcdefghijklmnopqrstuvwxyz0123456789 =;", max_size=400))


@given(st.lists(header, max_size=140), st.integers(1, 3))
def test_the_count_agrees_with_what_h11_parses(headers: list[tuple[str, str]],
                                               cut_at: int) -> None:
    data = head(headers)
    conn = h11.Connection(h11.SERVER, max_incomplete_event_size=10**9)
    conn.receive_data(data)
    event = conn.next_event()
    assert isinstance(event, h11.Request)
    size = data.find(b"\r\n\r\n")
    expected = len(event.headers) > MAX_HEADER_LINES or size > MAX_HEAD_BYTES
    assert head_too_large(data) == expected
    # what has arrived of it so far is judged on what is there
    partial = data[:size * cut_at // 4]
    if head_too_large(partial):
        assert expected


@pytest.mark.parametrize("spelling", ["chunked", "Chunked", "gzip, chunked"])
@pytest.mark.parametrize("behind", [False, True], ids=["first", "pipelined"])
def test_content_length_and_transfer_encoding_together_are_refused(
        where: tuple[str, int], spelling: str, behind: bool) -> None:
    """A proxy reading the body by Content-Length passes on all of it; had the server read it
    by Transfer-Encoding (h11 does: RFC 9112), the rest would be a request of its own that
    the proxy never saw (request smuggling). Refused 400, the connection closed: one answer."""
    smuggled = head([], close=False)
    chunked = b"0\r\n\r\n" + smuggled
    lines = [b"POST /mcp HTTP/1.1", b"Host: 127.0.0.1", b"Content-Type: application/json",
             b"Content-Length: %d" % len(chunked), b"Transfer-Encoding: " + spelling.encode()]
    data = b"\r\n".join(lines) + b"\r\n\r\n" + chunked
    if behind:
        data = head([], close=False) + data
    answer = exchange(where, data)
    statuses = [status(b"HTTP/1.1 " + part) for part in answer.split(b"HTTP/1.1 ")[1:]]
    assert statuses == ([200, 400] if behind else [400]), answer[-400:]
    assert b"not both" in answer
    assert status(exchange(where, head([]))) == 200  # the server goes on


def test_an_absolute_form_target_is_served_by_its_path_and_authority(
        where: tuple[str, int]) -> None:
    """RFC 9112 3.2.2: a server accepts ``POST http://host:port/mcp``; the target's authority
    takes the place of ``Host``, so the DNS-rebinding check judges it."""
    def sent(target: str, host: str = "127.0.0.1") -> int:
        data = head([]).replace(b"POST /mcp ", f"POST {target} ".encode(), 1)
        return status(exchange(where, data.replace(b"host: 127.0.0.1", f"host: {host}"
                                                   .encode(), 1)))

    assert sent(f"http://127.0.0.1:{where[1]}/mcp") == 200
    assert sent(f"http://127.0.0.1:{where[1]}/mcp", host="evil.example") == 200
    assert sent("http://evil.example/mcp") == 421  # the target's authority is checked
    assert sent("http://user@127.0.0.1/mcp") == 404  # left as it came
