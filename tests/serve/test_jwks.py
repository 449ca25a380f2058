"""The issuer's key set as serve trusts it, against a real local issuer (a JWKS served over
HTTP that tests rotate, re-key, break and slow down): removed keys stop verifying once the
set is refetched, new keys work at first use, fetches are single, bounded and rate-limited,
and every failure is an AuthError (401) or IssuerUnavailableError (503), never anything else."""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import anyio
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from tests.serve.local_issuer import LocalIssuer, public_jwk
from toolhost.serve import jwks as jwks_module
from toolhost.serve.auth import AuthError, IssuerUnavailableError, JwtAuth
from toolhost.serve.jwks_fetch import FetchError, fetch_json

AUD = "aud-1"


class Issuer(LocalIssuer):
    def token(self, kid: str = "k1", alg: str = "RS256", **claims: Any) -> str:
        return self.sign({"iss": self.url, "aud": AUD, "sub": "ana",
                          "exp": int(time.time()) + 300, **claims}, kid, alg)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def issuer() -> Iterator[Issuer]:
    made = Issuer()
    yield made
    made.close()


FAST_FETCH = 1.0


def auth_for(issuer: Issuer, clock: Clock) -> JwtAuth:
    auth = JwtAuth(issuer.url, AUD, issuer.url + "/jwks")
    auth.keys._clock = clock
    return auth


def good_claims(issuer: Issuer) -> dict[str, Any]:
    """Claims that pass every check: what is left to decide is the key and the signature."""
    return {"iss": issuer.url, "aud": AUD, "sub": "x", "exp": int(time.time()) + 300}


def verify(auth: JwtAuth, token: str) -> str:
    """"ok", "401: why" or "503: why": never anything else."""
    async def go() -> str:
        try:
            return "ok " + (await auth.verify(token)).subject
        except AuthError as exc:
            return f"{exc.status}: {exc}"
    return anyio.run(go)


def test_a_removed_key_stops_verifying_once_the_set_is_refetched(issuer: Issuer) -> None:
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    issuer.keys["k2"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer.published = ["k2"]  # k1 revoked
    assert verify(auth, issuer.token("k2")) == "ok ana"  # unknown kid: refetched at once
    assert verify(auth, issuer.token()).startswith("401: no signing key")
    assert issuer.hits == 3


def test_after_max_age_the_set_is_refetched_and_a_revoked_key_refused(issuer: Issuer) -> None:
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    issuer.keys["k2"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer.published = ["k2"]
    clock.now += jwks_module.MAX_AGE - 1
    assert verify(auth, issuer.token()) == "ok ana" and issuer.hits == 1  # still trusted
    clock.now += 2
    assert verify(auth, issuer.token()).startswith("401: no signing key")
    assert issuer.hits == 2


def test_a_key_replaced_under_the_same_kid_follows_the_new_set(issuer: Issuer) -> None:
    clock = Clock()
    auth = auth_for(issuer, clock)
    old = issuer.token()
    assert verify(auth, old) == "ok ana"
    issuer.keys["k1"] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    assert verify(auth, issuer.token()) == "ok ana"
    assert verify(auth, old) == "401: Signature verification failed"


def test_made_up_kids_and_signatures_refetch_a_few_times_then_once_per_cooldown(
        issuer: Issuer) -> None:
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    forged = jwt.encode(good_claims(issuer), rsa.generate_private_key(public_exponent=65537,
                        key_size=2048), algorithm="RS256", headers={"kid": "k1"})
    said = []
    for i in range(20):
        made_up = jwt.encode(good_claims(issuer), issuer.keys["k1"], algorithm="RS256",
                             headers={"kid": f"nope{i}"})
        said.append(verify(auth, made_up))
        assert verify(auth, forged).startswith("401: ")
    # the first fetch, then MISS_BURST refetches that found nothing, then none
    assert issuer.hits == 1 + jwks_module.MISS_BURST
    # a key id refetched for and not found: 401; while no refetch is allowed: 503 (retry)
    assert all(s.startswith("401: no signing key") for s in said[:2]), said
    assert all(s.startswith("503: ") and "retry" in s for s in said[2:]), said
    clock.now += jwks_module.MISS_COOLDOWN + 1
    issuer.keys["k2"] = ec.generate_private_key(ec.SECP256R1())
    issuer.published = ["k1", "k2"]
    assert verify(auth, issuer.token("k2", "ES256")) == "ok ana"  # a new key: first use


def test_a_made_up_kid_does_not_block_the_next_genuine_new_key(issuer: Issuer) -> None:
    """A token naming a made-up key id, then at once the issuer's first token signed with a
    key it has just published: the second refetches and is served (it was refused for the
    10 s cooldown the first started)."""
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    made_up = jwt.encode(good_claims(issuer), issuer.keys["k1"], algorithm="RS256",
                         headers={"kid": "nope"})
    assert verify(auth, made_up).startswith("401: no signing key")
    issuer.keys["k2"] = ec.generate_private_key(ec.SECP256R1())
    issuer.published = ["k1", "k2"]
    assert verify(auth, issuer.token("k2", "ES256")) == "ok ana"
    assert issuer.hits == 3


def test_a_new_key_while_made_up_kids_empty_the_bucket_is_a_503_retried_in_time(
        issuer: Issuer) -> None:
    """Made-up key ids sent nonstop empty the refetch bucket; the issuer's first token
    signed with a key it has just published cannot be checked until the bucket refills.
    It is 503 with the time until then (the token may be good: its client retries), not 401
    (its client would re-authorize and get a token refused the same way), and the retry
    then is served."""
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    for i in range(jwks_module.MISS_BURST):
        made_up = jwt.encode(good_claims(issuer), issuer.keys["k1"], algorithm="RS256",
                             headers={"kid": f"nope{i}"})
        assert verify(auth, made_up).startswith("401: no signing key")
    issuer.keys["k2"] = ec.generate_private_key(ec.SECP256R1())
    issuer.published = ["k1", "k2"]
    clock.now += 4.0  # 4 s of the 10 s refill gone

    async def refusal() -> IssuerUnavailableError:
        with pytest.raises(IssuerUnavailableError) as caught:
            await auth.verify(issuer.token("k2", "ES256"))
        return caught.value
    error = anyio.run(refusal)
    assert error.status == 503 and error.retry_after == pytest.approx(6.0)
    assert "retry" in str(error) and "'k2'" in str(error)
    assert verify(auth, issuer.token()) == "ok ana"  # known keys are served meanwhile
    clock.now += error.retry_after
    assert verify(auth, issuer.token("k2", "ES256")) == "ok ana"


@pytest.mark.parametrize(("setup", "words"), [
    ({"body": b"<html>maintenance</html>"}, "is not JSON"),
    ({"body": b'{"keys": 5}'}, "is not a JWK set"),
    ({"body": b"[" * 100_000}, "is not JSON"),
    ({"body": b'{"keys": []}'}, "no signing key"),
    ({"body": b'{"keys": [{"kty": "oct", "kid": "k1", "k": "c2VjcmV0"}]}'}, "no signing key"),
    ({"body": b'{"keys": [{"kty": "RSA", "kid": "k1", "n": "!!", "e": "AQAB"}]}'},
     "no signing key"),
    ({"body": b'{"keys": [{"kty": "EC", "kid": "k1", "crv": "P-999"}]}'}, "no signing key"),
    ({"body": b" " * (2 * 1024 * 1024)}, "bytes"),
    ({"status": 500}, "HTTP 500"), ({"status": 404}, "HTTP 404"),
    ({"status": 302}, "redirect"),
    ({"delay": FAST_FETCH + 1.5}, "did not answer within 1 s"),
    ({"drip": 0.2}, "did not answer within 1 s"),
])
def test_every_broken_key_set_is_a_401_or_503_in_one_line(
        issuer: Issuer, setup: dict[str, Any], words: str,
        caplog: pytest.LogCaptureFixture) -> None:
    for name, value in setup.items():
        setattr(issuer, name, value)
    auth = auth_for(issuer, Clock())
    # the real fetch, with a timeout the test controls (5 s in production)
    auth.keys._fetch = functools.partial(fetch_json, timeout=FAST_FETCH)
    got = verify(auth, issuer.token())
    assert got.startswith(("401: ", "503: ")) and words in got, got
    assert "\n" not in got
    assert all("\n" not in r.getMessage() and r.exc_info is None for r in caplog.records)


def test_a_key_set_that_drips_frees_the_fetch_at_its_deadline(issuer: Issuer) -> None:
    """A set sent a byte every 0.2 s (hours for the whole of it): the fetch gives up at its
    deadline, its thread and socket freed. Before, each read waited for a whole 64 KiB
    chunk and the socket timeout bounded each byte only: the fetching thread stayed (the
    event loop moved on without it) and each later fetch left one more."""
    issuer.drip = 0.2
    issuer.body = b" " * 100_000 + b'{"keys": []}'
    outcome: list[str] = []

    def fetch() -> None:
        try:
            fetch_json(issuer.url + "/jwks", timeout=FAST_FETCH)
        except FetchError as exc:
            outcome.append(str(exc))

    thread = threading.Thread(target=fetch, daemon=True)
    thread.start()
    thread.join(60)  # a bound on a hang, not a measure: the deadline is 1 s
    assert not thread.is_alive(), "the fetch still reads the dripping set"
    assert outcome == ["did not answer within 1 s"]


def test_after_a_failed_fetch_tokens_are_refused_at_once_and_known_keys_still_work(
        issuer: Issuer) -> None:
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    issuer.body = b"<html>"
    made_up = jwt.encode(good_claims(issuer), issuer.keys["k1"], algorithm="RS256",
                         headers={"kid": "new"})
    assert verify(auth, made_up).startswith("503: ")
    hits = issuer.hits
    assert verify(auth, made_up).startswith("503: ") and issuer.hits == hits  # no refetch
    assert verify(auth, issuer.token()) == "ok ana"  # the kept set still serves k1


def test_one_fetch_at_a_time_and_a_cached_key_never_waits(issuer: Issuer) -> None:
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    issuer.delay = 2.0
    good = issuer.token()
    results: list[tuple[str, float]] = []

    async def one(token: str) -> None:
        start = time.monotonic()
        try:
            await auth.verify(token)
            results.append(("ok", time.monotonic() - start))
        except AuthError as exc:
            results.append((str(exc.status), time.monotonic() - start))

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for i in range(30):
                tg.start_soon(one, jwt.encode(good_claims(issuer), issuer.keys["k1"],
                                              algorithm="RS256", headers={"kid": f"n{i}"}))
            await anyio.sleep(0.2)
            await one(good)

    anyio.run(main)
    assert results[0][0] == "ok" and results[0][1] < 0.5, results[:3]  # not held
    assert issuer.hits == 2  # thirty made-up kids, one fetch


@pytest.mark.parametrize(("alg", "kid_key"), [
    ("ES256", "rsa"), ("EdDSA", "rsa"), ("PS256", "ec"), ("RS256", "ed"), ("ES384", "ec"),
    ("HS256", "rsa"), ("none", "rsa"), ("RS1", "rsa"), ("", "rsa"),
])
def test_an_algorithm_that_does_not_fit_the_key_is_a_401(issuer: Issuer, alg: str,
                                                         kid_key: str) -> None:
    issuer.keys["rsa"] = issuer.keys["k1"]
    issuer.keys["ec"] = ec.generate_private_key(ec.SECP256R1())
    issuer.keys["ed"] = ed25519.Ed25519PrivateKey.generate()
    issuer.published = ["rsa", "ec", "ed"]
    import base64

    def b64(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()

    now = int(time.time())
    token = (b64({"alg": alg, "kid": kid_key, "typ": "JWT"}) + "." + b64(
        {"iss": issuer.url, "aud": AUD, "sub": "x", "exp": now + 60}) + ".AAAA")
    got = verify(auth_for(issuer, Clock()), token)
    assert got.startswith("401: "), got


def test_issuer_unavailable_is_its_own_error() -> None:
    assert IssuerUnavailableError.status == 503 and AuthError.status == 401


def _bad_claims(issuer: Issuer) -> dict[str, str]:
    """Tokens whose own claims fail, whatever the keys say (signed by the issuer's key)."""
    now = int(time.time())
    no_sub = jwt.encode({"iss": issuer.url, "aud": AUD, "exp": now + 60}, issuer.keys["k1"],
                        algorithm="RS256", headers={"kid": "k1"})
    return {
        "expired": issuer.token(exp=now - 3600),
        "not yet valid": issuer.token(nbf=now + 3600),
        "issued in the future": issuer.token(iat=now + 3600),
        "iat not a number": issuer.token(iat="yesterday"),
        "exp not a number": issuer.token(exp="never"),
        "nbf not a number": issuer.token(nbf=[1]),
        "exp as a string, expired": issuer.token(exp=str(now - 3600)),
        "another issuer": issuer.token(iss="https://elsewhere.example"),
        "another audience": issuer.token(aud="another"),
        "no sub": no_sub,
        "empty sub": issuer.token(sub=" "),
        "no exp": jwt.encode({"iss": issuer.url, "aud": AUD, "sub": "x"}, issuer.keys["k1"],
                             algorithm="RS256", headers={"kid": "k1"}),
        "expired, unknown key id": jwt.encode(
            {"iss": issuer.url, "aud": AUD, "sub": "x", "exp": now - 3600},
            issuer.keys["k1"], algorithm="RS256", headers={"kid": "unknown"}),
    }


@pytest.mark.parametrize("state", ["stale set, issuer down", "unknown key, issuer down"])
def test_a_token_its_own_claims_refuse_is_a_401_while_the_issuer_is_down(
        issuer: Issuer, state: str) -> None:
    """503 says "the token may be good: retry it"; a token whose claims already fail is
    refused 401 whatever the state of the issuer, without a fetch."""
    clock = Clock()
    auth = auth_for(issuer, clock)
    assert verify(auth, issuer.token()) == "ok ana"
    issuer.status, issuer.body = 500, b"down"
    if state.startswith("stale"):
        clock.now += 301  # older than 5 minutes: every token needs a fetch first
        could_be_good = issuer.token()
    else:
        could_be_good = jwt.encode({"iss": issuer.url, "aud": AUD, "sub": "x",
                                    "exp": int(time.time()) + 60}, issuer.keys["k1"],
                                   algorithm="RS256", headers={"kid": "rotated-in"})
    assert verify(auth, could_be_good).startswith("503: ")
    hits = issuer.hits
    for name, token in _bad_claims(issuer).items():
        got = verify(auth, token)
        assert got.startswith("401: "), (name, got)
    assert issuer.hits == hits  # none of them asked the issuer
    issuer.status, issuer.body = 200, None
    clock.now += 11  # after the cooldown: the same tokens, the same answers
    for name, token in _bad_claims(issuer).items():
        assert verify(auth, token).startswith("401: "), name


def test_two_keys_under_one_kid_each_verify_their_tokens(issuer: Issuer) -> None:
    """An issuer publishing two keys under one key id (mid-rotation, or a set merged from two
    sources) is read as such (jwks.Keys holds a list per kid): a token signed by either one
    is good. Forged signatures still fail, with at most MAX_KEYS_TRIED checks each."""
    second = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    issuer.body = json.dumps({"keys": [public_jwk(issuer.keys["k1"], "k1"),
                                       public_jwk(second, "k1")]}).encode()
    auth = auth_for(issuer, Clock())
    assert verify(auth, issuer.token()) == "ok ana"
    by_second = jwt.encode(good_claims(issuer), second, algorithm="RS256",
                           headers={"kid": "k1"})
    assert verify(auth, by_second) == "ok x"
    assert verify(auth, by_second[:-4] + "AAAA").startswith("401: ")


def _signed_as_is(key: Any, header: dict[str, Any], claims: dict[str, Any]) -> str:
    """A token with exactly ``header`` (jwt.encode rewrites b64 and crit), RS256-signed."""
    import base64

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    signature = jwt.algorithms.RSAAlgorithm(jwt.algorithms.RSAAlgorithm.SHA256).sign(
        signing_input.encode(), key)
    return signing_input + "." + b64(signature)


@pytest.mark.parametrize("extra", [
    {"crit": ["b64"], "b64": True},  # PyJWT understands b64 and would accept this one
    {"crit": ["cnf-bound"], "cnf-bound": True},
    {"crit": []}, {"crit": "exp"}, {"b64": True},
])
def test_a_token_naming_critical_extensions_is_refused(issuer: Issuer,
                                                       extra: dict[str, Any]) -> None:
    """RFC 7515 §4.1.11: toolhost understands no JWS extension, so a validly signed token
    that names one (crit, b64) is refused, whatever the PyJWT release does with it."""
    header = {"alg": "RS256", "typ": "JWT", "kid": "k1", **extra}
    token = _signed_as_is(issuer.keys["k1"], header, good_claims(issuer))
    got = verify(auth_for(issuer, Clock()), token)
    assert got.startswith("401: ") and ("crit" in got or "critical" in got), got
    assert issuer.hits == 0  # refused before any key is fetched


def test_key_url_headers_are_never_followed(issuer: Issuer) -> None:
    """jku / x5u / jwk in a token's header are ignored: only the issuer's set is read."""
    elsewhere = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    forged = jwt.encode(good_claims(issuer), elsewhere, algorithm="RS256", headers={
        "kid": "k1", "jku": issuer.url + "/evil", "x5u": issuer.url + "/evil",
        "jwk": public_jwk(elsewhere, "k1")})
    auth = auth_for(issuer, Clock())
    assert verify(auth, forged) == "401: Signature verification failed"
    assert verify(auth, issuer.token()) == "ok ana"
