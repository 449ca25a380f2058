"""What h11 cannot read, and what it reads but MCP cannot use, is answered precisely: a status
and a JSON-RPC error naming the fault (never uvicorn's or Starlette's plain text), at once
(a chunk announcing 2**64 bytes is 413 now, not a 408 at the body deadline), and the honest
calls after it are still answered. One real ``toolhost serve`` probed with raw sockets."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_server, server_env
from tests.serve.kb_config import KB_HEAD
from tests.serve.raw_http import answers, exchange

MODERN = modern_meta()
BODY = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list",
                   "params": {"_meta": MODERN}}).encode()
STD = [b"host: 127.0.0.1", b"content-type: application/json",
       b"accept: application/json, text/event-stream", b"mcp-method: tools/list"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[tuple[str, int], Path]]:
    tmp = tmp_path_factory.mktemp("framing")
    (tmp / "kb.yaml").write_text(KB_HEAD + "permissions:\n  default: allow\n")
    argv = [sys.executable, "-m", "toolhost", "serve", str(tmp / "kb.yaml"), "--transport",
            "http", "--port", "0", "--max-message", "1MiB", "--body-timeout", "30",
            "--header-timeout", "1"]
    with http_server(argv, tmp / "server.log") as url:
        parts = urlsplit(url)
        yield (parts.hostname or "", parts.port or 0), tmp / "server.log"


def request(headers: list[bytes], body: bytes = b"", line: bytes = b"POST /mcp HTTP/1.1",
            close: bool = True) -> bytes:
    extra = [b"connection: close"] if close else []
    return line + b"\r\n" + b"".join(h + b"\r\n" for h in headers + extra) + b"\r\n" + body


def sized(body: bytes = BODY, *headers: bytes, close: bool = True) -> bytes:
    return request([*STD, *headers, b"content-length: %d" % len(body)], body, close=close)


def chunked(chunks: bytes) -> bytes:
    return request([*STD, b"transfer-encoding: chunked"], chunks)


def error_of(status: int, headers: dict[str, bytes], body: bytes) -> str:
    assert headers.get("content-type") == b"application/json", (status, headers, body[:200])
    message: Any = json.loads(body)
    assert message["jsonrpc"] == "2.0" and message["id"] is None, message
    assert message["error"]["code"] == -32600, message
    text: str = message["error"]["message"]
    assert len(text) < 400, text
    return text


def bare_lf(data: bytes) -> bytes:
    """``data`` with every line of its head ended by LF alone."""
    head, _, body = data.partition(b"\r\n\r\n")
    return head.replace(b"\r\n", b"\n") + b"\n\n" + body


SIZE = b"%x" % len(BODY)
# name, the bytes sent, the status, words the JSON-RPC error's message holds
REFUSED = [
    ("a chunk of 2**64 bytes", chunked(b"10000000000000000\r\n" + BODY + b"\r\n0\r\n\r\n"),
     413, ["chunk", "--max-message"]),
    ("a chunk of 2**64-1 bytes", chunked(b"ffffffffffffffff\r\n" + BODY), 413, ["chunk"]),
    ("a chunk of 2 MiB, over the limit", chunked(b"200000\r\n" + BODY), 413, ["chunk"]),
    # reading a chunk costs an event however small: tiny chunks are bounded (S11-8)
    ("1,100 chunks of one byte", chunked(b"".join(b"1\r\n%c\r\n" % c for c in BODY)
                                         + b"1\r\n \r\n" * 1100 + b"0\r\n\r\n"),
     400, ["chunks", "Content-Length"]),
    ("a chunk size of 1,000 digits", chunked(b"f" * 1000 + b"\r\n" + BODY + b"\r\n0\r\n\r\n"),
     400, ["chunk header"]),
    ("a negative chunk size", chunked(b"-5\r\n" + BODY + b"\r\n0\r\n\r\n"), 400, ["chunk"]),
    ("a chunk without its CRLF", chunked(SIZE + b"\r\n" + BODY + b"XX0\r\n\r\n"), 400,
     ["chunk"]),
    ("a CR in a session id", sized(BODY, b"mcp-session-id: ab\rcd"), 400, ["header"]),
    ("a NUL in a session id", sized(BODY, b"mcp-session-id: ab\x00cd"), 400, ["header"]),
    ("two Content-Length values", sized(BODY, b"content-length: 3"), 400, ["Content-Length"]),
    ("Content-Length +N", request([*STD, b"content-length: +%d" % len(BODY)], BODY), 400,
     ["Content-Length"]),
    ("Transfer-Encoding gzip, chunked",
     request([*STD, b"transfer-encoding: gzip, chunked"], SIZE + b"\r\n" + BODY + b"\r\n0\r\n\r\n"),
     400, ["Transfer-Encoding"]),
    ("a request line of spaces", request(STD, line=b"POST  /mcp  HTTP/1.1"), 400,
     ["request line"]),
    ("charset utf-16, in UTF-16", request(
        [b"host: 127.0.0.1", b"content-type: application/json; charset=utf-16",
         b"content-length: %d" % len(BODY.decode().encode("utf-16"))],
        BODY.decode().encode("utf-16")), 415, ["charset", "utf-16", "UTF-8"]),
    ("charset latin-1", request(
        [b"host: 127.0.0.1", b'content-type: application/json; charset="ISO-8859-1"',
         b"content-length: %d" % len(BODY)], BODY), 415, ["ISO-8859-1"]),
    # announced, never sent: 408 within half the header deadline (0.5 s here), not the body's 30
    ("Expect: 100-continue, then no body", sized(BODY, b"expect: 100-continue")[:-len(BODY)],
     408, ["no byte of the body", "--header-timeout"]),
    ("Content-Length, no body", sized(BODY)[:-len(BODY)], 408, ["no byte of the body"]),
    # headers a request has one of: with two, which counts is not guessed (S11-9)
    ("two Origins, the loopback one first",
     sized(BODY, b"origin: http://127.0.0.1", b"origin: http://evil.example"), 400,
     ["one origin header"]),
    ("two session ids", sized(BODY, b"mcp-session-id: a", b"mcp-session-id: b"), 400,
     ["one mcp-session-id"]),
    ("two protocol versions", sized(BODY, b"mcp-protocol-version: 2026-07-28",
                                    b"mcp-protocol-version: 2025-06-18"), 400,
     ["one mcp-protocol-version"]),
    ("two Content-Types", sized(BODY, b"content-type: application/json"), 400,
     ["one content-type"]),
    # heads h11 reads by the RFC's leave, which a proxy in front may read otherwise (request
    # smuggling): refused, the connection closed
    ("bare LF line ends", bare_lf(sized()), 400, ["bare LF", "CRLF"]),
    ("one bare LF among CRLFs", sized(BODY, b"x-a: 1\nx-b: 2"), 400, ["bare LF"]),
    ("a bare LF before the request line", b"\n" + sized(), 400, ["bare LF"]),
    ("bare LF, Content-Length and chunked", b"\n".join([
        b"POST /mcp HTTP/1.1", *STD, b"content-length: 5", b"transfer-encoding: chunked",
        b"", SIZE + b"\r\n" + BODY + b"\r\n0\r\n\r\n"]), 400, ["bare LF"]),
    ("an obs-fold header", sized(BODY, b"x-note: a\r\n  b"), 400, ["obs-fold"]),
    ("a folded Transfer-Encoding", request([*STD, b"transfer-encoding:\r\n chunked"],
                                           SIZE + b"\r\n" + BODY + b"\r\n0\r\n\r\n"),
     400, ["obs-fold"]),
    ("two identical Content-Length", sized(BODY, b"content-length: %d" % len(BODY)), 400,
     ["one Content-Length"]),
    ("a Content-Length list", request([*STD, b"content-length: %d, %d" % (len(BODY),
                                                                          len(BODY))], BODY),
     400, ["one Content-Length"]),
    ("whitespace before the colon", request([*STD, b"content-length : %d" % len(BODY)],
                                            BODY), 400, ["header"]),
    ("a tab before the colon", request([*STD, b"transfer-encoding\t: chunked"],
                                       SIZE + b"\r\n" + BODY + b"\r\n0\r\n\r\n"),
     400, ["header"]),
    ("chunked, then another coding", request([*STD, b"transfer-encoding: chunked, gzip"],
                                             SIZE + b"\r\n" + BODY + b"\r\n0\r\n\r\n"),
     400, ["Transfer-Encoding"]),
    ("two Transfer-Encoding headers", request(
        [*STD, b"transfer-encoding: chunked", b"transfer-encoding: chunked"],
        SIZE + b"\r\n" + BODY + b"\r\n0\r\n\r\n"), 400, ["Transfer-Encoding"]),
    # the same in a chunked body's trailer section: a proxy reading it otherwise takes the
    # next request for a trailer, or a trailer for a request
    ("a trailer ended by a bare LF", chunked(SIZE + b"\r\n" + BODY + b"\r\n0\r\nx-t: 1\n\r\n"),
     400, ["trailer", "bare LF"]),
    ("a chunked body ended by a bare LF", chunked(SIZE + b"\r\n" + BODY + b"\r\n0\r\n\n"),
     400, ["bare LF"]),
    ("a folded trailer", chunked(SIZE + b"\r\n" + BODY + b"\r\n0\r\nx-t: 1\r\n 2\r\n\r\n"),
     400, ["obs-fold"]),
    ("PUT", request(STD, line=b"PUT /mcp HTTP/1.1"), 405, ["Method Not Allowed", "PUT"]),
    ("another path", request(STD, line=b"GET /admin HTTP/1.1"), 404, ["Not Found", "/admin"]),
    ("a modern GET", request([b"host: 127.0.0.1", b"accept: text/event-stream"],
                             line=b"GET /mcp HTTP/1.1"), 405, ["Mcp-Session-Id"]),
]


@pytest.mark.parametrize(("name", "data", "status", "words"), REFUSED,
                         ids=[c[0] for c in REFUSED])
def test_a_fault_is_answered_with_its_status_and_a_json_rpc_error(
        served: tuple[tuple[str, int], Path], name: str, data: bytes, status: int,
        words: list[str]) -> None:
    where, _ = served
    got = answers(exchange(where, data))
    if got and got[0][0] == 100:  # "100 Continue" first (Expect), then the answer
        got = got[1:]
    assert [a[0] for a in got] == [status], got
    text = error_of(*got[0])
    assert all(word in text for word in words), text
    assert [a[0] for a in answers(exchange(where, sized()))] == [200]  # the next one is served


# what our own reading of a chunked body refuses (toolhost.serve.http_chunks)
CHUNKED_REFUSED = [case for case in REFUSED if "chunk" in case[0] or "trailer" in case[0]]


@pytest.fixture(scope="module")
def hidden_h11(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """A server whose h11 keeps its chunked reader's state out of sight (hidden_h11_main)."""
    tmp = tmp_path_factory.mktemp("hidden")
    (tmp / "kb.yaml").write_text(KB_HEAD + "permissions:\n  default: allow\n")
    argv = [sys.executable, str(HERE / "hidden_h11_main.py"), "serve", str(tmp / "kb.yaml"),
            "--transport", "http", "--port", "0", "--max-message", "1MiB",
            "--body-timeout", "30", "--header-timeout", "1"]
    env = server_env()
    env["PYTHONPATH"] = os.pathsep.join([str(HERE), env["PYTHONPATH"]])
    with http_server(argv, tmp / "server.log", env=env) as url:
        parts = urlsplit(url)
        yield parts.hostname or "", parts.port or 0


@pytest.mark.parametrize(("name", "data", "status", "words"), CHUNKED_REFUSED,
                         ids=[c[0] for c in CHUNKED_REFUSED])
def test_chunked_bodies_are_checked_without_h11s_private_state(
        hidden_h11: tuple[str, int], name: str, data: bytes, status: int,
        words: list[str]) -> None:
    # (before: the checks read h11's reader state, and found nothing to refuse here)
    got = answers(exchange(hidden_h11, data))
    assert [a[0] for a in got] == [status], got
    assert all(word in error_of(*got[0]) for word in words)


SERVED = [
    ("chunk extensions", chunked(SIZE + b";name=value;x\r\n" + BODY + b"\r\n0\r\n\r\n")),
    ("trailers", chunked(SIZE + b"\r\n" + BODY + b"\r\n0\r\nx-checksum: 1\r\n\r\n")),
    ("many small chunks", chunked(b"".join(b"1\r\n%c\r\n" % c for c in BODY) + b"0\r\n\r\n")),
    ("2,000 chunks of 300 bytes", chunked(SIZE + b"\r\n" + BODY + b"\r\n" + (
        b"12c\r\n" + b" " * 300 + b"\r\n") * 2000 + b"0\r\n\r\n")),
    ("charset utf-8", request([b"host: 127.0.0.1", b'content-type: application/json; '
                               b'charset="UTF-8"', b"mcp-method: tools/list",
                               b"content-length: %d" % len(BODY)], BODY)),
    ("charset us-ascii", request([b"host: 127.0.0.1", b"content-type: application/json;"
                                  b"charset=us-ascii", b"mcp-method: tools/list",
                                  b"content-length: %d" % len(BODY)], BODY)),
    ("a BOM", sized(b"\xef\xbb\xbf" + BODY)),
]


@pytest.mark.parametrize(("name", "data"), SERVED, ids=[c[0] for c in SERVED])
def test_odd_but_valid_framing_is_served(served: tuple[tuple[str, int], Path], name: str,
                                         data: bytes) -> None:
    got = answers(exchange(served[0], data))
    assert [a[0] for a in got] == [200], got
    assert json.loads(got[0][2])["id"] == 7


def test_a_body_that_lies_about_its_length_on_a_kept_connection(
        served: tuple[tuple[str, int], Path]) -> None:
    """Pipelined: a body 10 bytes short of what it says swallows the head of the next
    request; the first is a parse error, what is left of the second a 400, both JSON-RPC."""
    second = sized(BODY)
    lying = request([*STD, b"content-length: %d" % (len(BODY) + 10)], BODY, close=False)
    got = answers(exchange(served[0], lying + second))
    assert [a[0] for a in got] == [400, 400], got
    assert "Parse error" in json.loads(got[0][2])["error"]["message"]
    assert "request line" in error_of(*got[1])


def test_json_refused_by_a_specific_range_is_answered_as_a_stream(
        served: tuple[tuple[str, int], Path]) -> None:
    """``application/json;q=0, */*``: JSON is refused (the specific range decides), the
    stream admitted: the answer is an event stream."""
    data = request([b"host: 127.0.0.1", b"content-type: application/json",
                    b"accept: application/json;q=0, */*", b"mcp-method: tools/list",
                    b"content-length: %d" % len(BODY)], BODY)
    raw = exchange(served[0], data)
    assert raw.startswith(b"HTTP/1.1 200 "), raw[:200]
    assert b"content-type: text/event-stream" in raw.lower(), raw[:300]
    assert b'"id":7' in raw


def test_options_star_names_what_the_server_allows(served: tuple[tuple[str, int], Path]
                                                   ) -> None:
    got = answers(exchange(served[0], request([b"host: 127.0.0.1"],
                                              line=b"OPTIONS * HTTP/1.1")))
    assert [a[0] for a in got] == [204], got
    assert b"POST" in got[0][1]["allow"]


def test_an_upgrade_is_ignored_and_the_request_served(served: tuple[tuple[str, int], Path]
                                                     ) -> None:
    for upgrade in (b"websocket", b"h2c", b"TLS/1.2"):
        got = answers(exchange(served[0], sized(BODY, b"connection: Upgrade, close",
                                                b"upgrade: " + upgrade,
                                                b"sec-websocket-version: 13",
                                                b"sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==",
                                                close=False)))
        assert [a[0] for a in got] == [200], (upgrade, got)


def test_no_traceback_and_no_warning_in_the_log(served: tuple[tuple[str, int], Path]) -> None:
    """Run last: what every test above sent left no traceback; an upgrade no warning."""
    upgrade = sized(BODY, b"connection: Upgrade, close", b"upgrade: websocket", close=False)
    assert [a[0] for a in answers(exchange(served[0], upgrade))] == [200]
    log = served[1].read_text()
    assert "Traceback" not in log
    assert "Upgrade" not in log and "WebSocket" not in log, log  # uvicorn's 2 lines each
