"""Output of an upstream that is not JSON-RPC is a few one-line warnings naming it, never a
traceback per line (tracebacks only with --debug); an answer that is not what it should be is
one line naming the upstream, and a sound connection is kept."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolhost.gateway.client import UpstreamConnection
from toolhost.gateway.spec import UpstreamSpec

from .conftest import HOSTILE, hostile_config, http_upstream


def tools(config: Path, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "toolhost", *flags, "tools", str(config)],
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})


def test_a_flood_of_banner_lines_is_a_few_lines_of_log(tmp_path: Path) -> None:
    done = tools(hostile_config(tmp_path), HOSTILE_MODE="noise", HOSTILE_N="20000")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "mcp__h__echo" in done.stdout
    # (a loaded machine may add "still waiting for upstream server 'h' ...": not the subject)
    lines = [line for line in done.stderr.splitlines() if "still waiting for" not in line]
    assert "Traceback" not in done.stderr
    assert len(lines) <= 6, lines[:10]
    assert lines[0] == ("toolhost: WARNING: upstream server 'h' wrote a line that is not "
                        "JSON-RPC (not JSON): 'banner: not JSON-RPC'")
    assert ("upstream server 'h' wrote 19997 more lines that are not JSON-RPC (not shown)"
            in done.stderr)


def test_tracebacks_only_with_debug(tmp_path: Path) -> None:
    done = tools(hostile_config(tmp_path), "--debug", HOSTILE_MODE="noise", HOSTILE_N="2")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr.count("Traceback") == 2


def test_an_invalid_answer_fails_its_request_at_once(tmp_path: Path) -> None:
    deep: dict[str, object] = {"type": "object"}
    for _ in range(150):  # deeper than the mcp client's parser goes
        deep = {"type": "object", "properties": {"a": deep}}
    import json

    tool = json.dumps([{"name": "deep", "inputSchema": deep}])
    done = tools(hostile_config(tmp_path, connect_timeout="60s"), HOSTILE_TOOLS=tool)
    assert done.returncode == 1
    assert "upstream server 'h' sent an answer that is not valid JSON-RPC" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_invalid_result_is_one_line_and_the_connection_is_kept(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)),
                        env={"HOSTILE_MODE": "bad_result", "HOSTILE_LOG": str(log)})
    connection = UpstreamConnection(spec, "h")
    try:
        for _ in range(2):
            result = connection.call_tool("echo", {"text": "x"}, 10.0)
            assert result["isError"] is True
            assert result["content"] == [{"type": "text", "text": (
                "upstream server 'h' answered the call of 'echo' with an invalid result: "
                "content.0.TextContent.text: Field required and 10 more")}]
        assert log.read_text().count('"initialize"') == 1  # not started again
    finally:
        connection.close()



# answers no JSON parser reads, each with its id where an answer has it (@DEEP@: lists
# nested that many levels)
BROKEN_ANSWERS = {
    "nested 1,000 deep": ('{"jsonrpc": "2.0", "id": @ID@, "result": {"content": [], '
                          '"structuredContent": {"a": @DEEP@}}}', 1000),
    "nested 200,000 deep": ('{"jsonrpc": "2.0", "id": @ID@, "result": {"a": @DEEP@}}',
                            200_000),
    "the id after the deep part": ('{"jsonrpc": "2.0", "result": {"a": @DEEP@}, "id": @ID@}',
                                   5000),
    "a bad escape": ('{"jsonrpc": "2.0", "id": @ID@, "result": {"content": [{"type": "text", '
                     '"text": "x\\u00zz"}]}}', 0),
    "a raw control character": ('{"jsonrpc": "2.0", "id": @ID@, "result": {"content": [{'
                                '"type": "text", "text": "a\tb\x01"}]}}', 0),
    "cut short": ('{"jsonrpc": "2.0", "id": @ID@, "result": {"content": [{"type": "text", "te',
                  0),
    "brackets in strings": ('{"jsonrpc": "2.0", "result": {"k": "}}]]\\"{{", "d": @DEEP@}, '
                            '"id": @ID@}', 3000),
    "an id written 7.0": ('{"jsonrpc": "2.0", "id": @ID@.0, "result": {"content": []}}', 0),
    "an id written 7e0": ('{"jsonrpc": "2.0", "result": {"content": []}, "id": @ID@e0}', 0),
    "an id written 700E-2": ('{"jsonrpc": "2.0", "id": @ID@00E-2, "error": {"code": 1, '
                             '"message": "m"}}', 0),
    "an error answer": ('{"jsonrpc": "2.0", "id": @ID@, "error": {"code": 1, "message": "m", '
                        '"data": @DEEP@}}', 3000),
}


@pytest.mark.parametrize(("raw", "levels"), list(BROKEN_ANSWERS.values()),
                         ids=list(BROKEN_ANSWERS))
def test_an_answer_no_parser_reads_fails_its_call_at_once(raw: str, levels: int) -> None:
    spec = UpstreamSpec(command=(sys.executable, str(HOSTILE)),
                        env={"HOSTILE_RAW": raw, "HOSTILE_N": str(levels)})
    connection = UpstreamConnection(spec, "h")
    try:
        started = time.monotonic()
        result = connection.call_tool("echo", {"text": "x"}, 30.0)
        assert time.monotonic() - started < 10  # not the call's 30 s timeout
        assert result["isError"] is True
        assert "upstream server 'h' sent an answer that is not valid JSON-RPC" in \
            result["content"][0]["text"]
    finally:
        connection.close()


# answers of an HTTP upstream (a POST's JSON body) that are no JSON-RPC answer: what the call
# is told (the mcp client's own report was pydantic's, many lines long)
HTTP_UNREAD = {
    "an id written 7.0": ('{"jsonrpc": "2.0", "id": @ID@.0, "result": {"content": []}}',
                          "id.int: Input should be a valid integer and "),
    "not JSON": ("<html>502 Bad Gateway</html>", "not JSON"),
    "cut short": ('{"jsonrpc": "2.0", "id": @ID@, "result": {"content": [', "not JSON"),
    "no jsonrpc": ('{"id": @ID@, "result": {"content": []}}', "jsonrpc: Field required and "),
}


@pytest.mark.parametrize(("raw", "said"), list(HTTP_UNREAD.values()), ids=list(HTTP_UNREAD))
def test_an_http_answer_no_client_reads_is_one_line(raw: str, said: str) -> None:
    with http_upstream(HOSTILE, HOSTILE_RAW=raw) as port:
        connection = UpstreamConnection(UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp"), "h")
        try:
            result = connection.call_tool("echo", {"text": "x"}, 30.0)
            text = result["content"][0]["text"]
            assert result["isError"] is True
            assert text.startswith("upstream server 'h' sent an answer that is not valid "
                                   f"JSON-RPC: {said}"), text
            assert "\n" not in text and "pydantic" not in text, text
        finally:
            connection.close()


# a POST's JSON answer that is not the answer to that request: the request waited out its
# deadline (600 s by default) for an answer that had come
NOT_THE_ANSWER = {
    "another id": ('{"jsonrpc": "2.0", "id": "zz", "result": {"content": []}}',
                   "names the id 'zz'"),
    "another number": ('{"jsonrpc": "2.0", "id": 99999, "error": {"code": 1, "message": "m"}}',
                       "names the id 99999"),
    "no id": ('{"jsonrpc": "2.0", "result": {"content": []}}', "names no id"),
    "a notification": ('{"jsonrpc": "2.0", "method": "notifications/message", "params": {'
                       '"level": "info", "data": "x"}}',
                       "is a notification ('notifications/message') instead"),
    "a request": ('{"jsonrpc": "2.0", "id": "up-1", "method": "ping"}',
                  "is a request ('ping') instead"),
}


@pytest.mark.parametrize(("raw", "said"), list(NOT_THE_ANSWER.values()),
                         ids=list(NOT_THE_ANSWER))
def test_an_http_answer_to_another_request_fails_the_call_at_once(raw: str, said: str) -> None:
    with http_upstream(HOSTILE, HOSTILE_RAW=raw) as port:
        connection = UpstreamConnection(UpstreamSpec(url=f"http://127.0.0.1:{port}/mcp"), "h")
        try:
            for _ in range(2):  # (and the connection is kept for the next call)
                result = connection.call_tool("echo", {"text": "x"}, 60.0)
                text = result["content"][0]["text"]
                assert result["isError"] is True
                assert text.startswith("upstream server 'h' sent an answer that is not valid "
                                       "JSON-RPC: the answer to the request with id "), text
                assert text.endswith(said), text
        finally:
            connection.close()


def test_the_answer_of_a_request_is_told_by_its_id_however_long() -> None:
    from toolhost.gateway.http_caps import not_the_answer

    text = "x" * 200_000  # past what is parsed whole: scanned
    # (true, null: no id the scan reads, so the client judges the answer, and refuses it)
    for ident, sent, wrong in ((7, 7, False), ('"7"', 7, False), ("7.0", 7, False),
                               ('"zz"', 7, True), (8, 7, True), ("true", 1, False)):
        body = f'{{"jsonrpc": "2.0", "result": {{"t": "{text}"}}, "id": {ident}}}'.encode()
        assert bool(not_the_answer(body, sent)) is wrong, (ident, sent)
        assert bool(not_the_answer(body[:1000] + b"}", sent)) is False  # no JSON: the client's
    assert not_the_answer(b'{"jsonrpc": "2.0", "result": {}, "id": true}', 1) == (
        "the answer to the request with id 1 names the id True")
