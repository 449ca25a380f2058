"""Finding the key of a token, against a real local issuer over HTTP.

- The key set from the issuer's metadata: an issuer that publishes only OAuth 2.0
  authorization server metadata (RFC 8414, which the MCP authorization spec accepts in place
  of OIDC Discovery) works, with or without a path in its URL; metadata naming another
  issuer is refused (its keys are not this issuer's).
- A token naming no key id (``kid`` is optional, RFC 7515) is checked against the set's keys
  that fit it, a few at most."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import anyio
import jwt
import pytest

from tests.serve.local_issuer import LocalIssuer, local_issuer, new_rsa_key
from toolhost.serve.auth import AuthError, JwtAuth

AUD = "aud-disc"
KEY = new_rsa_key()


@pytest.fixture(scope="module")
def issuer() -> Iterator[LocalIssuer]:
    with local_issuer(KEY) as made:
        made.publish(("d1", KEY))
        yield made


def verify(issuer_url: str, token_iss: str | None = None) -> str:
    """"ok <sub>" or "<status>: why", for a token of ``issuer_url`` checked by a fresh cache
    that finds the key set by discovery."""
    token = jwt.encode({"iss": token_iss or issuer_url, "aud": AUD, "sub": "dana",
                        "exp": int(time.time()) + 300}, KEY, algorithm="RS256",
                       headers={"kid": "d1"})

    async def go() -> str:
        try:
            return "ok " + (await JwtAuth(issuer_url, AUD).verify(token)).subject
        except AuthError as exc:
            return f"{exc.status}: {exc}"
    return anyio.run(go)


# (where the issuer is, where its metadata is published)
PLACES = [
    ("", "/.well-known/openid-configuration"),  # OIDC Discovery (as before)
    ("", "/.well-known/oauth-authorization-server"),  # RFC 8414 only
    ("/tenant/a", "/tenant/a/.well-known/openid-configuration"),
    ("/tenant/a", "/.well-known/oauth-authorization-server/tenant/a"),  # RFC 8414 inserted
    ("/tenant/a", "/.well-known/openid-configuration/tenant/a"),  # OIDC inserted
]


@pytest.mark.parametrize(("path", "published"), PLACES)
def test_the_key_set_is_found_wherever_the_spec_lets_the_issuer_publish_its_metadata(
        issuer: LocalIssuer, path: str, published: str) -> None:
    url = issuer.url + path
    issuer.metadata = {published: {"issuer": url, "jwks_uri": issuer.url + "/keys"}}
    assert verify(url) == "ok dana"


def test_metadata_naming_another_issuer_is_refused(issuer: LocalIssuer) -> None:
    """RFC 8414 §3.3 / OIDC Discovery §4.3: the metadata's issuer must be the one asked
    for; else the keys it points at may be another issuer's."""
    url = issuer.url + "/tenant/b"
    issuer.metadata = {"/tenant/b/.well-known/openid-configuration": {
        "issuer": issuer.url + "/tenant/evil", "jwks_uri": issuer.url + "/keys"}}
    said = verify(url)
    assert said.startswith("503: ") and "names the issuer" in said and "tenant/evil" in said


def test_no_metadata_anywhere_is_one_line_naming_where_it_looked(issuer: LocalIssuer) -> None:
    issuer.metadata = {}
    issuer.asked.clear()
    url = issuer.url + "/tenant/c"
    said = verify(url)
    assert said.startswith("503: ") and "publishes no metadata" in said and "\n" not in said
    assert "--auth-jwks-url" in said
    assert issuer.asked == ["/tenant/c/.well-known/openid-configuration",
                            "/.well-known/oauth-authorization-server/tenant/c",
                            "/.well-known/openid-configuration/tenant/c"]
    assert all(issuer.url + path in said for path in issuer.asked)


def verify_signed(issuer: LocalIssuer, key: Any, kid: str | None) -> str:
    """A token signed by ``key`` (naming ``kid`` when given), checked with the set at /keys."""
    headers = {"kid": kid} if kid is not None else None
    token = jwt.encode({"iss": issuer.url, "aud": AUD, "sub": "nokid",
                        "exp": int(time.time()) + 300}, key, algorithm="RS256",
                       headers=headers)

    async def go() -> str:
        try:
            return "ok " + (await JwtAuth(issuer.url, AUD, issuer.url + "/keys"
                                          ).verify(token)).subject
        except AuthError as exc:
            return f"{exc.status}: {exc}"
    return anyio.run(go)


OTHERS = [new_rsa_key() for _ in range(4)]


def test_a_token_naming_no_key_id_is_checked_against_the_keys_that_fit(issuer: LocalIssuer
                                                                        ) -> None:
    issuer.publish(("d1", KEY))  # the set names its key; the token does not
    assert verify_signed(issuer, KEY, None) == "ok nokid"
    issuer.publish(("d0", OTHERS[0]), ("d1", KEY), (None, OTHERS[1]))
    assert verify_signed(issuer, KEY, None) == "ok nokid"
    assert verify_signed(issuer, OTHERS[1], None) == "ok nokid"
    assert verify_signed(issuer, KEY, "d1") == "ok nokid"
    # a key the set does not hold, with or without a key id: refused
    assert verify_signed(issuer, OTHERS[2], None) == "401: Signature verification failed"
    assert verify_signed(issuer, OTHERS[2], "d1") == "401: Signature verification failed"


def test_a_token_naming_no_key_id_among_many_keys_is_refused_saying_so(issuer: LocalIssuer
                                                                        ) -> None:
    """Past four keys that fit, a signature is not checked against each (a forged one would
    cost one check per key): the issuer must name its key."""
    issuer.publish(("d1", KEY), *((f"o{i}", key) for i, key in enumerate(OTHERS)))
    said = verify_signed(issuer, KEY, None)
    assert said.startswith("401: the token names no key id and 5 keys") and "kid" in said
    assert verify_signed(issuer, KEY, "d1") == "ok nokid"


def test_an_unavailable_issuer_is_retried_after_its_cooldown(issuer: LocalIssuer) -> None:
    """The 503's Retry-After is when the issuer will be asked again (the rest of the
    failure cooldown): a client retrying sooner would only be refused again at once."""
    from starlette.requests import Request

    from toolhost.serve.http_gate import Gate
    from toolhost.serve.jwks import FAIL_COOLDOWN

    issuer.metadata = {}
    url = issuer.url + "/tenant/d"
    token = jwt.encode({"iss": url, "aud": AUD, "sub": "dana", "exp": int(time.time()) + 300},
                       KEY, algorithm="RS256")
    gate = Gate(path="/mcp", bind="127.0.0.1", token=None, allowed_origins=(),
                allowed_hosts=(), auth=JwtAuth(url, AUD))
    request = Request({"type": "http", "method": "POST", "path": "/mcp", "query_string": b"",
                       "scheme": "http", "server": ("127.0.0.1", 80), "root_path": "",
                       "headers": [(b"host", b"127.0.0.1"),
                                   (b"authorization", b"Bearer " + token.encode())]})

    async def answers() -> list[tuple[int, str]]:
        said = []
        for _ in range(2):  # the failed fetch, then refused at once during the cooldown
            answer = await gate.caller(request)
            assert hasattr(answer, "status_code")  # a refusal, not a caller
            said.append((answer.status_code, answer.headers["retry-after"]))
        return said
    for status, retry_after in anyio.run(answers):
        # the rest of the 10 s cooldown (5 s before: a retry refused again at once)
        assert status == 503 and FAIL_COOLDOWN / 2 < int(retry_after) <= FAIL_COOLDOWN


def test_an_issuer_that_moves_its_key_set_is_followed(issuer: LocalIssuer,
                                                      caplog: pytest.LogCaptureFixture) -> None:
    """The metadata is read again with each fetch of the set: an issuer that moves its key
    set (here to another host, with a new key) is followed at the first token of the new
    key; metadata that can no longer be read keeps the address it named (said once)."""
    moved_key = new_rsa_key()
    url = issuer.url + "/tenant/m"
    where = "/tenant/m/.well-known/openid-configuration"
    issuer.metadata = {where: {"issuer": url, "jwks_uri": issuer.url + "/keys"}}
    auth = JwtAuth(url, AUD)

    def check(key: Any, kid: str) -> str:
        token = jwt.encode({"iss": url, "aud": AUD, "sub": kid, "exp": int(time.time()) + 300},
                           key, algorithm="RS256", headers={"kid": kid})

        async def go() -> str:
            try:
                return "ok " + (await auth.verify(token)).subject
            except AuthError as exc:
                return f"{exc.status}: {exc}"
        return anyio.run(go)

    assert check(KEY, "d1") == "ok d1"
    with local_issuer(moved_key) as elsewhere:
        elsewhere.publish(("m1", moved_key))
        issuer.metadata = {where: {"issuer": url, "jwks_uri": elsewhere.url + "/jwks"}}
        assert check(moved_key, "m1") == "ok m1"
        assert elsewhere.hits == 1
        assert any("now names its key set" in r.getMessage() for r in caplog.records)
        issuer.metadata = {}  # the metadata is gone: the set is read where it was
        elsewhere.publish(("m1", moved_key), ("m2", OTHERS[3]))
        assert check(OTHERS[3], "m2") == "ok m2"
        assert elsewhere.hits == 2
        assert any("as before" in r.getMessage() for r in caplog.records)
    issuer.publish(("d1", KEY))
