"""OAuth access tokens under ``serve --transport http``: a local issuer (keys made here, a
JWKS and discovery document served by a real local HTTP server), tokens it signs, rules on
the caller enforced, the caller in the audit log, and every bad token a 401."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import jwt
import pytest

from tests.modern import modern_meta
from tests.serve.conftest import HERE, http_server
from tests.serve.local_issuer import LocalIssuer, new_rsa_key

AUD = "toolhost-tests"
CONFIG = """\
toolhost: 1
servers:
  db:
    tools:
      echo: {python: "blackbox_tools:echo"}
      migrate: {python: "blackbox_tools:echo"}
permissions:
  default: deny
  allow:
    - mcp__db__echo
    - tool: mcp__db__migrate
      callers: {groups: [platform]}
  audit_log: AUDIT
"""


class Issuer(LocalIssuer):
    """The local issuer, signing tokens of a caller with groups and a scope."""

    def token(self, sub: str = "alice", groups: tuple[str, ...] = (), **claims: Any) -> str:
        now = int(time.time())
        return self.sign({"iss": self.url, "aud": AUD, "sub": sub, "iat": now,
                          "exp": now + 300, "groups": list(groups), "scope": "tools:call",
                          **claims})


def serve_authed(issuer: Issuer, tmp: Path, *extra: str) -> AbstractContextManager[str]:
    """A real ``serve --transport http`` of :data:`CONFIG` (audit log ``tmp/audit.jsonl``)
    trusting ``issuer`` for :data:`AUD`, ``extra`` flags added; yields its MCP URL."""
    config = tmp / "db.yaml"
    config.write_text(CONFIG.replace("AUDIT", str(tmp / "audit.jsonl")))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    return http_server([sys.executable, "-m", "toolhost", "serve", str(config), "--transport",
                        "http", "--port", "0", "--auth-issuer", issuer.url, "--auth-audience",
                        AUD, *extra], tmp / "server.log", env=env)


@pytest.fixture(scope="module")
def served(issuer: Issuer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("auth")
    with serve_authed(issuer, tmp) as url:
        yield url, tmp / "audit.jsonl"


def call(url: str, tool: str, token: str | None) -> tuple[int, dict[str, Any], dict[str, str]]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": tool, "arguments": {"text": "hi"},
        "_meta": modern_meta()}}
    headers = {"content-type": "application/json", "accept": "application/json",
               "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call",
               "mcp-name": tool}
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, json.dumps(body).encode(), headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read()), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, json.loads(exc.read() or b"{}"), dict(exc.headers)


def test_rules_on_the_caller_are_enforced_and_recorded(issuer: Issuer,
                                                       served: tuple[str, Path]) -> None:
    url, audit = served
    status, answer, _ = call(url, "migrate", issuer.token("ana", ("platform",)))
    assert status == 200 and answer["result"]["isError"] is False, answer
    status, answer, _ = call(url, "migrate", issuer.token("bob", ("sales",)))
    assert status == 200 and answer["result"]["isError"] is True, answer
    assert call(url, "echo", issuer.token("bob"))[1]["result"]["isError"] is False
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(e["caller"]["sub"], e["tool"], e["decision"]) for e in entries[-3:]] == [
        ("ana", "mcp__db__migrate", "allow"), ("bob", "mcp__db__migrate", "deny"),
        ("bob", "mcp__db__echo", "allow")]
    assert entries[-3]["caller"]["groups"] == ["platform"]
    assert entries[-3]["caller"]["iss"] == issuer.url


def test_no_token_is_a_401_pointing_at_the_resource_metadata(served: tuple[str, Path]) -> None:
    url, _ = served
    status, _, headers = call(url, "echo", None)
    assert status == 401
    challenge = headers["www-authenticate"]
    assert challenge.startswith('Bearer resource_metadata="') and "error=" not in challenge
    metadata_url = challenge.split('"')[1]
    with urllib.request.urlopen(metadata_url, timeout=10) as answer:
        metadata = json.loads(answer.read())
    assert metadata["resource"] == url
    assert metadata["authorization_servers"] and metadata["bearer_methods_supported"] == [
        "header"]


def _hs256(issuer: Issuer) -> str:
    now = int(time.time())
    return jwt.encode({"iss": issuer.url, "aud": AUD, "sub": "x", "exp": now + 60},
                      "a-shared-secret-that-is-long-enough-for-hs256", algorithm="HS256",
                      headers={"kid": "k1"})


def _forged_header(issuer: Issuer, alg: str) -> str:
    import base64

    def b64(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    now = int(time.time())
    return (b64({"alg": alg, "kid": "k1", "typ": "JWT"}) + "." + b64(
        {"iss": issuer.url, "aud": AUD, "sub": "x", "exp": now + 60}) + ".AAAA")


def _nested(issuer: Issuer, part: int, text: bytes) -> str:
    """A token whose header (0) or payload (1) is JSON nested ``text`` deep (within the
    token limit, deeper than Python's JSON reader goes)."""
    import base64

    parts = issuer.token().split(".")
    parts[part] = base64.urlsafe_b64encode(text).rstrip(b"=").decode()
    return ".".join(parts)


def _unsigned(issuer: Issuer) -> str:
    now = int(time.time())
    return jwt.encode({"iss": issuer.url, "aud": AUD, "sub": "x", "exp": now + 60}, None,
                      algorithm="none", headers={"kid": "k1"})


@pytest.mark.parametrize("bad", [
    lambda i: i.token(exp=int(time.time()) - 3600),
    lambda i: i.token(aud="someone-else"),
    lambda i: i.token(iss="http://evil.example"),
    lambda i: i.token(nbf=int(time.time()) + 3600),
    lambda i: i.token()[:-4] + "AAAA",
    lambda i: jwt.encode({"iss": i.url, "aud": AUD, "sub": "x", "exp": int(time.time()) + 60},
                         new_rsa_key(),
                         algorithm="RS256", headers={"kid": "k1"}),
    lambda i: i.token().replace(".", "", 1),
    _hs256, _unsigned,
    lambda i: "x" * 16_000,  # over the token limit, within the 16 KiB request head
    lambda i: jwt.encode({"iss": i.url, "aud": AUD, "sub": "x",
                          "exp": int(time.time()) + 60}, i.keys["k1"], algorithm="RS256",
                         headers={"kid": "\r\nSet-Cookie: a=b"}),
    lambda i: _forged_header(i, "ES256"), lambda i: _forged_header(i, "EdDSA"),
    lambda i: _forged_header(i, "PS512"), lambda i: _forged_header(i, "XX1"),
    lambda i: i.token(sub=""),
    lambda i: jwt.encode({"iss": i.url, "aud": AUD, "sub": "x",
                          "exp": int(time.time()) + 60}, i.keys["k1"], algorithm="RS256",
                         headers={"kid": "k1", "crit": ["urn:x:bound"], "urn:x:bound": 1}),
    lambda i: _nested(i, 1, b"[" * 8000), lambda i: _nested(i, 1, b'{"a":' * 2000),
    lambda i: _nested(i, 0, b"[" * 8000),
], ids=["expired", "audience", "issuer", "not-yet", "signature", "foreign-key", "garbled",
        "hs256", "alg-none", "huge", "kid-injection", "es256-on-rsa", "eddsa-on-rsa",
        "ps512-on-rs256-key", "unknown-alg", "empty-sub",
        "unknown-crit", "nested-payload-array", "nested-payload-object", "nested-header"])
def test_every_bad_token_is_a_401(issuer: Issuer, served: tuple[str, Path], bad: Any) -> None:
    url, _ = served
    status, answer, headers = call(url, "echo", bad(issuer))
    assert status == 401, answer
    assert 'error="invalid_token"' in headers["www-authenticate"]
    assert "\n" not in headers["www-authenticate"]
    log = (served[0] and Path(served[1]).parent / "server.log").read_text()
    assert "Traceback" not in log and "Exception in ASGI" not in log


def test_two_authorization_headers_are_refused(issuer: Issuer,
                                               served: tuple[str, Path]) -> None:
    """Which of two tokens counts is a guess a proxy may make otherwise: neither does."""
    import http.client
    from urllib.parse import urlsplit

    url, _ = served
    parts = urlsplit(url)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    for first, second in ((issuer.token(), "Bearer x"), ("Bearer x", issuer.token())):
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            connection.putrequest("POST", parts.path)
            for name, value in (("content-type", "application/json"),
                                ("accept", "application/json, text/event-stream"),
                                ("content-length", str(len(body)))):
                connection.putheader(name, value)
            connection.putheader("authorization", f"Bearer {first}"
                                 if not first.startswith("Bearer") else first)
            connection.putheader("authorization", f"Bearer {second}"
                                 if not second.startswith("Bearer") else second)
            connection.endheaders(body)
            answer = connection.getresponse()
            assert answer.status == 401, answer.read()
            assert "one Authorization header" in answer.getheader("www-authenticate", "")
        finally:
            connection.close()


def _request(host: str, scheme: str = "http") -> Any:
    from starlette.requests import Request

    return Request({"type": "http", "method": "POST", "scheme": scheme, "path": "/mcp",
                    "root_path": "", "query_string": b"", "server": ("10.0.0.5", 8765),
                    "headers": [(b"host", host.encode())]})


async def _challenge_and_metadata(gate: Any, host: str) -> tuple[str, dict[str, Any]]:
    refused = await gate.caller(_request(host))
    metadata = json.loads(gate.resource_metadata(_request(host)).body)
    return refused.headers["www-authenticate"], metadata


@pytest.mark.anyio
async def test_the_resource_behind_a_tls_proxy_is_the_public_url(issuer: Issuer) -> None:
    """RFC 9728: a client uses the metadata only if its ``resource`` is the URL it called.
    Behind a TLS-terminating proxy toolhost sees http://10.0.0.5:8765: ``--auth-resource``
    names the public URL, which the metadata and the 401's pointer then use."""
    from toolhost.errors import ToolhostError
    from toolhost.serve.auth import JwtAuth
    from toolhost.serve.http_gate import Gate

    def gate(resource: str | None) -> Gate:
        return Gate(path="/mcp", bind="0.0.0.0", token=None, allowed_origins=(),
                    allowed_hosts=(), auth=JwtAuth(issuer.url, AUD, resource=resource))

    challenge, metadata = await _challenge_and_metadata(gate(None), "10.0.0.5:8765")
    assert metadata["resource"] == "http://10.0.0.5:8765/mcp"  # the URL the request was sent to
    # no scope is asked for: a spec-following client then asks the issuer for its defaults,
    # not for every scope the rules name (docs/serve.md, "Scopes")
    assert "scopes_supported" not in metadata and "scope=" not in challenge
    assert ('resource_metadata="http://10.0.0.5:8765/.well-known/oauth-protected-resource/mcp"'
            in challenge)
    public = "https://tools.example.com/team/mcp"
    challenge, metadata = await _challenge_and_metadata(gate(public), "10.0.0.5:8765")
    assert metadata["resource"] == public
    assert ('resource_metadata="https://tools.example.com/.well-known/oauth-protected-resource'
            '/team/mcp"' in challenge)
    for bad in ("tools.example.com/mcp", "ftp://x/mcp", "https://x/mcp?a=1", "https:///mcp",
                "https://x:99999/mcp"):
        with pytest.raises(ToolhostError, match="--auth-resource"):
            gate(bad)


def _open_stream(url: str, token: str, *, legacy: bool) -> Any:
    """A listen stream (modern), or a legacy session's GET stream, opened with ``token`` on a
    raw connection: the socket, its answer's head read."""
    import socket
    from urllib.parse import urlparse

    where = urlparse(url)
    auth = f"authorization: Bearer {token}\r\n"
    accept = "accept: application/json, text/event-stream\r\n"
    if legacy:
        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}).encode()
        request = urllib.request.Request(url, init, {
            "content-type": "application/json", "authorization": f"Bearer {token}",
            "accept": "application/json, text/event-stream"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            session = answer.headers["mcp-session-id"]
        head = (f"GET {where.path} HTTP/1.1\r\nhost: {where.netloc}\r\n{auth}{accept}"
                f"mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n\r\n")
        data = head.encode()
    else:
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "subscriptions/listen",
                           "params": {"notifications": {"toolsListChanged": True},
                                      "_meta": modern_meta()}}).encode()
        data = (f"POST {where.path} HTTP/1.1\r\nhost: {where.netloc}\r\n{auth}{accept}"
                "content-type: application/json\r\nmcp-protocol-version: 2026-07-28\r\n"
                "mcp-method: subscriptions/listen\r\n"
                f"content-length: {len(body)}\r\n\r\n").encode() + body
    sock = socket.create_connection((where.hostname, where.port))
    try:
        sock.sendall(data)
        sock.settimeout(30)
        head = sock.recv(300)
        assert b" 200 " in head, head
    except BaseException:
        sock.close()  # (not left for the garbage collector: a ResourceWarning in a later test)
        raise
    return sock


def _ended(sock: Any) -> bool:
    """Read until the server ends the stream (True) or 30 s pass (False)."""
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return False
    except OSError:  # reset: the connection was closed at once
        return True
    return True


@pytest.mark.parametrize("legacy", [False, True])
def test_a_stream_ends_when_the_token_it_was_opened_with_expires(
        issuer: Issuer, served: tuple[str, Path], legacy: bool) -> None:
    """A token is checked when a stream opens; a stream used to outlive it for ever,
    delivering notifications to a caller whose access had ended."""
    url, _ = served
    # accepted (a token gets 30 s of leeway past its exp) and expiring 9-10 s from now: room
    # for a loaded machine to open the stream (1 s, less int()'s truncation, was refused; 4 s
    # once too, under a full suite beside other work)
    with contextlib.ExitStack() as held:  # (each closed, whichever open fails)
        expiring = held.enter_context(_open_stream(
            url, issuer.token("eve", exp=int(time.time()) - 21), legacy=legacy))
        fresh = held.enter_context(_open_stream(url, issuer.token("ana"), legacy=legacy))
        assert _ended(expiring)
        fresh.settimeout(0.5)  # a token of 300 s: its stream is still open
        with pytest.raises(TimeoutError):
            while fresh.recv(65536):
                pass


@pytest.mark.parametrize(("exp", "expires"), [
    (1700000000, 1700000000.0), (1.5, 1.5), (10 ** 400, float("inf")), (True, float("inf")),
    ("1700000000", float("inf")), (None, float("inf")), (float("nan"), float("inf"))])
def test_the_callers_expiry_is_read_from_any_exp(exp: Any, expires: float) -> None:
    from toolhost.permissions.callers.claims import caller_from_claims

    caller = caller_from_claims({"sub": "a", "exp": exp})
    assert caller.expires == expires
    assert caller == caller_from_claims({"sub": "a"})  # a refreshed token: the same caller
