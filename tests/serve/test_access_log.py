"""The access log of ``serve --transport http``: one line per request, once its response has
ended, naming the method, path and status, the JSON-RPC method, name and id, the caller (the
access token's ``sub``), the outcome and the duration (a real server, a local issuer, real
HTTP). Before, a request left no line at all unless it failed: an operator could not say who
called what, how it ended or how long it took."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path

from tests.serve.test_auth import Issuer, call, serve_authed

LINE = re.compile(r"^toolhost: INFO: access: (.*) (\d+\.\d) ms$")


def _access_lines(log: Path) -> list[str]:
    """The access lines (without the duration), waiting for the last to be written."""
    deadline = time.monotonic() + 10
    while True:
        lines = [m.group(1) for m in map(LINE.match, log.read_text().splitlines()) if m]
        if lines or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        with exc:
            return int(exc.code)


def test_one_line_per_request_says_who_called_what_and_how_it_ended(
        issuer: Issuer, tmp_path: Path) -> None:
    with serve_authed(issuer, tmp_path) as url:
        assert call(url, "echo", issuer.token("ana"))[0] == 200
        assert call(url, "migrate", issuer.token("bob"))[0] == 200  # denied: not platform
        assert call(url, "nothing", issuer.token("cy"))[0] == 400  # unknown tool
        assert call(url, "echo", None)[0] == 401
        base = url.rsplit("/", 1)[0]
        assert _get(base + "/healthz") == 200  # a probe answered 200: no line
        assert _get(base + "/elsewhere") == 404
        ended = time.monotonic() + 10
        while len(_access_lines(tmp_path / "server.log")) < 5 and time.monotonic() < ended:
            time.sleep(0.05)
        lines = _access_lines(tmp_path / "server.log")
    assert lines == [
        "POST /mcp 200 tools/call name=echo id=1 caller=ana outcome=ok",
        "POST /mcp 200 tools/call name=migrate id=1 caller=bob outcome=tool_error",
        "POST /mcp 400 tools/call name=nothing id=1 caller=cy outcome=error code=-32602",
        "POST /mcp 401 caller=-",
        "GET /elsewhere 404 caller=-",
    ]


def test_a_clients_values_stay_one_field_each(issuer: Issuer, tmp_path: Path) -> None:
    """A name with blanks, quotes, ``=`` or a line break is quoted (and escaped): it never
    reads as a field of its own, nor starts a line."""
    name = 'x caller=root outcome=ok\ntoolhost: INFO: access: forged "'
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": name, "arguments": {}}}  # 2025: no Mcp-Name to carry it
    with serve_authed(issuer, tmp_path) as url:
        request = urllib.request.Request(url, json.dumps(body).encode(), {
            "content-type": "application/json", "accept": "application/json",
            "authorization": f"Bearer {issuer.token('ana')}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert json.loads(answer.read())["error"]["code"] == -32602
        lines = _access_lines(tmp_path / "server.log")
    assert len(lines) == 1, lines
    shown = lines[0].split(" name=", 1)[1].split(" id=1 ")[0]
    assert json.loads(shown).startswith("x caller=root")
    assert lines[0].startswith("POST /mcp 200 tools/call name=\"x caller=root")
    assert lines[0].endswith(" id=1 caller=ana outcome=error code=-32602")
    text = (tmp_path / "server.log").read_text()
    assert all(not line.startswith("toolhost: INFO: access: forged")
               for line in text.splitlines())


def test_no_access_log_writes_none(issuer: Issuer, tmp_path: Path) -> None:
    with serve_authed(issuer, tmp_path, "--no-access-log") as url:
        assert call(url, "echo", issuer.token("ana"))[0] == 200
    assert "access:" not in (tmp_path / "server.log").read_text()


def test_a_token_in_the_query_string_is_not_taken_nor_logged(
        issuer: Issuer, tmp_path: Path) -> None:
    """The MCP authorization spec forbids access tokens in the URI: one there authenticates
    nothing (401), and the access line shows the path without its query."""
    token = issuer.token("ana")
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    with serve_authed(issuer, tmp_path) as url:
        request = urllib.request.Request(f"{url}?access_token={token}", json.dumps(body).encode(),
                                         {"content-type": "application/json",
                                          "accept": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=30).close()
            status = 200
        except urllib.error.HTTPError as exc:
            with exc:
                status = exc.code
        lines = _access_lines(tmp_path / "server.log")
    assert status == 401
    assert lines == ["POST /mcp 401 caller=-"]  # refused before its body is read
    assert token not in (tmp_path / "server.log").read_text()


def test_a_clients_credentials_in_a_resource_uri_are_not_logged(
        issuer: Issuer, tmp_path: Path) -> None:
    # the URI a client reads is logged as its name: a password in its userinfo or a key in
    # its query was the client's secret, which toolhost does not know to hide
    uris = ["https://ana:hunter2-pw@example.com/r?x=1", "notes://x?api_key=k3y-SEKRET&page=2",
            "s3://b/k?X-Amz-Signature=abcdef0123&v=1"]
    with serve_authed(issuer, tmp_path) as url:
        for n, uri in enumerate(uris):
            body = {"jsonrpc": "2.0", "id": n, "method": "resources/read", "params": {"uri": uri}}
            request = urllib.request.Request(url, json.dumps(body).encode(), {
                "content-type": "application/json", "accept": "application/json",
                "authorization": f"Bearer {issuer.token('ana')}"})
            with urllib.request.urlopen(request, timeout=30) as answer:
                answer.read()
        ended = time.monotonic() + 10
        while len(_access_lines(tmp_path / "server.log")) < 3 and time.monotonic() < ended:
            time.sleep(0.05)
    text = (tmp_path / "server.log").read_text()
    for secret in ("hunter2-pw", "k3y-SEKRET", "abcdef0123"):
        assert secret not in text
    names = [json.loads(line.split(" name=", 1)[1].split(" id=")[0]) for line in _access_lines(
        tmp_path / "server.log")]  # (quoted: each holds a "=")
    assert names == ["https://example.com/r?x=1", "notes://x?api_key=***&page=2",
                     "s3://b/k?X-Amz-Signature=***&v=1"], names
