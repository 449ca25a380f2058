"""Signed session ids (toolhost.serve.sessions): genuine ones pass anywhere the secret is
known; forged, altered, expired, oversized or foreign ones never do."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolhost.serve.sessions import SessionTokens


def test_a_genuine_id_carries_version_and_declared_capabilities() -> None:
    tokens = SessionTokens("shared")
    sid = tokens.issue("2025-11-25", {"elicitation": {}, "sampling": {"x": 1}, "roots": 5,
                                      "experimental": {"big": "x" * 10_000}})
    claims = SessionTokens("shared").check(sid)  # another replica, same secret
    assert claims is not None and claims.version == "2025-11-25"
    assert dict(claims.capabilities) == {"elicitation": {}, "sampling": {}}
    assert len(sid) < 200  # the client's capabilities are not copied into the header


def test_other_secrets_alterations_and_expiry_are_refused() -> None:
    tokens = SessionTokens("shared", ttl=60)
    sid = tokens.issue("2025-11-25", {}, now=1_000_000)
    assert tokens.check(sid, now=1_000_030) is not None
    assert tokens.check(sid, now=1_000_061) is None  # expired
    assert SessionTokens("other").check(sid, now=1_000_030) is None
    payload, signature = sid.split(".")
    assert tokens.check(payload[:-1] + ("A" if payload[-1] != "A" else "B") + "." + signature,
                        now=1_000_030) is None
    assert tokens.check(sid + "x", now=1_000_030) is None
    assert SessionTokens().check(SessionTokens().issue("v")) is None  # per-process secrets


def test_replicas_agree_without_a_secret_whichever_config_version_they_serve(
        tmp_path: Path) -> None:
    """A rolling deploy: replicas of the old and the new config behind one balancer both
    take the ids either gave; a secret of one's own still separates deployments."""
    config, other = tmp_path / "a.yaml", tmp_path / "b.yaml"
    config.write_text("toolhost: 1\n")
    other.write_text("toolhost: 1 # another\n")
    sid = SessionTokens.from_environ({}, config_files=[str(config)]).issue("v")
    assert SessionTokens.from_environ({}, config_files=[str(config)]).check(sid) is not None
    assert SessionTokens.from_environ({}, config_files=[str(other)]).check(sid) is not None
    secret = {"TOOLHOST_SESSION_SECRET": "s"}
    assert SessionTokens.from_environ(secret, config_files=[str(config)]).check(sid) is None
    # nothing served from files (an embedding program): a key of its own
    assert SessionTokens.from_environ({}).check(SessionTokens.from_environ({}).issue("v")) \
        is None


@pytest.mark.parametrize("junk", ["", ".", "a.b", "x" * 5000, "a.b.c", "é.é", "%%%.%%%"])
def test_junk_is_refused(junk: str) -> None:
    assert SessionTokens("shared").check(junk) is None


@given(st.text(max_size=300))
def test_no_text_is_accepted_without_the_secret(text: str) -> None:
    assert SessionTokens("shared").check(text) is None


@pytest.mark.parametrize("fields", [
    {"v": "2025-06-18", "c": [], "e": 10 ** 400, "n": "x"},
    {"v": "2025-06-18", "c": [], "e": 2 ** 53 + 1, "n": "x"},
    {"v": "2025-06-18", "c": [], "e": -(10 ** 400), "n": "x"},
    {"v": "2025-06-18", "c": [[1], {"a": 1}, None], "e": 10 ** 400, "n": "x", "u": 5},
], ids=["huge-expiry", "past-float", "huge-negative", "odd-types"])
def test_an_id_signed_with_the_built_in_key_and_hostile_claims_is_refused(
        fields: dict[str, object]) -> None:
    """The built-in key is no secret: anybody can sign claims. An expiry no float holds
    raised OverflowError (a 500 and a traceback for one forged header); now it is no id."""
    import json

    from toolhost.serve.sessions import BUILT_IN_KEY, _b64

    tokens = SessionTokens(BUILT_IN_KEY)
    payload = _b64(json.dumps(fields, separators=(",", ":")).encode())
    assert tokens.check(f"{payload}.{tokens._sign(payload)}") is None
