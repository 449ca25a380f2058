"""``claims_refusal``: what serve refuses from a token's unverified claims before it looks up
any key (so a token that cannot be good is a 401 even while the issuer is down) is never
stricter than PyJWT's own checks after the signature: a token PyJWT accepts is never refused
here, whatever its claims look like."""

from __future__ import annotations

import json
import time
from typing import Any

import jwt
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from toolhost.permissions.callers.claims import ClaimsError, caller_from_claims
from toolhost.serve.auth import LEEWAY, claims_refusal

ISS, AUD, SECRET = "https://issuer.example", "toolhost", "s" * 32
NOW = time.time()

times = st.one_of(
    st.integers(int(NOW) - 200, int(NOW) + 200),
    st.floats(NOW - 200, NOW + 200),
    st.sampled_from([0, -1, 2**53, 1e300, -1e300, True, False, None, "1", [], {}]),
)
GONE = object()  # the claim is left out
GOOD = {"exp": st.integers(int(NOW) + 1200, int(NOW) + 3600), "nbf": st.just(GONE),
        "iat": st.integers(int(NOW) - 100, int(NOW)), "iss": st.just(ISS), "aud": st.just(AUD),
        "sub": st.just("alice")}
ODD = {
    "exp": times, "nbf": times, "iat": st.just(GONE),
    "iss": st.sampled_from([ISS + "/", "", None, 5, [ISS], GONE]),
    "aud": st.sampled_from([[AUD], [AUD, "x"], ["x"], "x", [AUD, 5], None, 5, {}, GONE]),
    "sub": st.sampled_from(["", " ", None, 5, ["a"], "\u00e9", GONE]),
}
# mostly good claims with a few odd ones: both sides of PyJWT's verdict are explored
claims_strategy = st.fixed_dictionaries({
    key: st.one_of(GOOD[key], GOOD[key], ODD[key]) for key in GOOD
}).map(lambda claims: {k: v for k, v in claims.items() if v is not GONE})


def sign(claims: dict[str, Any]) -> str:
    """Any claims, signed as they are (jwt.encode refuses some shapes a token may carry)."""
    return jwt.api_jws.encode(json.dumps(claims).encode(), SECRET, algorithm="HS256")


def pyjwt_accepts(token: str) -> bool:
    try:
        claims = jwt.decode(token, SECRET, algorithms=["HS256"], audience=AUD, issuer=ISS,
                            leeway=LEEWAY, options={"require": ["exp", "iss", "aud", "sub"]})
        caller_from_claims(claims)
    except (jwt.PyJWTError, ClaimsError, TypeError, ValueError, OverflowError):
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(claims_strategy)
def test_never_stricter_than_pyjwt(claims: dict[str, Any]) -> None:
    token = sign(claims)
    accepted = pyjwt_accepts(token)
    event(f"PyJWT accepts: {accepted}")
    if accepted:
        assert claims_refusal(token, ISS, AUD, time.time()) is None, claims


@pytest.mark.parametrize(("claims", "why"), [  # exp and nbf: seconds from when it runs
    ({"iss": ISS, "aud": AUD, "sub": "a", "exp": -3600}, "expired"),
    ({"iss": ISS, "aud": AUD, "sub": "a", "exp": -1e300}, "expired"),
    ({"iss": ISS, "aud": AUD, "sub": "a", "exp": 60, "nbf": 3600}, "not yet"),
    ({"iss": "x", "aud": AUD, "sub": "a", "exp": 60}, "issuer"),
    ({"iss": ISS, "aud": ["x"], "sub": "a", "exp": 60}, "Audience"),
    ({"iss": ISS, "aud": AUD, "sub": " ", "exp": 60}, "sub"),
    ({"iss": ISS, "aud": AUD, "exp": 60}, '"sub"'),
    ({"iss": ISS, "aud": AUD, "sub": "a"}, '"exp"'),
])
def test_what_is_refused_says_why(claims: dict[str, Any], why: str) -> None:
    now = time.time()
    claims = {k: now + v if k in ("exp", "nbf") else v for k, v in claims.items()}
    got = claims_refusal(sign(claims), ISS, AUD, now)
    assert got is not None and why in got


@pytest.mark.parametrize("token", ["", "a.b", "a.b.c.d", "a.!!!.c", "a." + "e30" + ".c",
                                   "a.WzFd.c", "a.bnVsbA.c"])
def test_what_is_not_a_jwt_is_refused(token: str) -> None:
    assert claims_refusal(token, ISS, AUD, time.time()) is not None
