"""The issuer's current signing keys (its JWK set), as ``toolhost serve`` trusts them.

- The set is fetched at the first token and trusted for :data:`MAX_AGE` seconds (5 minutes);
  a token arriving later waits for a fresh copy. A key the issuer stops publishing (rotated
  out, revoked) is refused from the first fetch that no longer holds it; a key replaced
  under the same key id follows the new set.
- A token naming a key id the set does not hold refetches it at once (an issuer that signs
  with a key as soon as it publishes it works from the first token); so does a token whose
  signature fails with the key the set holds for its key id (an issuer that re-keys under
  the same key id). Refetches that still do not hold a (different) key for the token are
  rate-limited: :data:`MISS_BURST` in a row, then one every :data:`MISS_COOLDOWN` seconds;
  meanwhile such tokens are refused without a fetch, so made-up key ids cannot make toolhost
  hammer the issuer. (One made-up key id no longer blocks the next genuine new key for
  10 s: an issuer that starts signing with a new key just after one is found only then.)
- One fetch at a time (every token that needs it waits for the same one, without holding a
  thread); a token whose key is in the current set never waits for a fetch.
- A fetch that fails (unreachable, slow, not 200, a redirect, not JSON, over 1 MiB, not a JWK
  set) keeps the set there was and starts a cooldown of :data:`FAIL_COOLDOWN` seconds without
  fetches; tokens that need a fetch meanwhile are refused at once: the issuer is unavailable.
  One warning line per failed fetch.
- Without a JWKS URL, the set's address is the ``jwks_uri`` of the issuer's metadata: OIDC
  Discovery or RFC 8414 (:func:`discovery_urls`), read again with each fetch of the set (so
  bounded the same way: an issuer that moves its key set is followed); metadata naming
  another issuer is refused; metadata that cannot be read after it once was keeps the
  address it named.
- A token naming a key id the set does not hold while no refetch is allowed (the bucket
  above is empty) is IssuerUnavailable (503, retry when the bucket refills: the token may
  be good), not NoKey: a client told 401 would re-authorize and get a token that is
  refused the same way.
- A token naming no key id (``kid`` is optional) is checked against the keys of the set
  that fit its algorithm, those published without a key id first (a few at most: see
  toolhost.serve.auth).
- Only asymmetric signing keys are kept (RSA, EC, OKP; ``use`` absent or ``sig``); keys PyJWT
  cannot read are left out, with one warning line per fetch.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import anyio

from toolhost.serve.jwks_fetch import FETCH_TIMEOUT, FetchError, clean, fetch_json

__all__ = ["FAIL_COOLDOWN", "MAX_AGE", "MISS_BURST", "MISS_COOLDOWN", "IssuerUnavailable",
           "JwksCache", "NoKey", "SigningKey", "discovery_urls", "parse_jwks"]

log = logging.getLogger("toolhost.serve.auth")

MAX_AGE = 300.0
MISS_COOLDOWN = 10.0
MISS_BURST = 3  # refetches that find nothing new allowed in a row (then one per cooldown)
FAIL_COOLDOWN = 10.0
MAX_KEYS = 100


class NoKey(Exception):
    """The issuer's current set has no key for the token (401)."""


class IssuerUnavailable(Exception):
    """The issuer's key set cannot be fetched now (503); ``retry_after``: seconds until a
    fetch will be tried again (the rest of the cooldown)."""

    def __init__(self, message: str, retry_after: float = 0.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class SigningKey:
    """One usable key of the set: its type, curve and algorithm (as published) and the key."""

    key_type: str
    curve: str | None
    alg: str | None
    key: Any
    published: str = ""  # the JWK as published (sorted JSON): the same key, or a new one?


Keys = dict[str | None, list[SigningKey]]  # by kid (an issuer may publish one kid twice)


def parse_jwks(document: Any) -> tuple[Keys, list[str]]:
    """(usable signing keys by kid, what was left out and why); raises FetchError when
    ``document`` is not a JWK set at all."""
    import jwt

    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise FetchError("is not a JWK set (a JSON object with a keys list)")
    keys: Keys = {}
    skipped: list[str] = []
    for jwk in document["keys"][:MAX_KEYS]:
        kid = jwk.get("kid") if isinstance(jwk, dict) else None
        name = repr(clean(kid, 40)) if isinstance(kid, str) else "a key without kid"
        if not isinstance(jwk, dict) or not isinstance(kid, (str, type(None))):
            skipped.append("an entry that is not a key")
            continue
        if jwk.get("use", "sig") != "sig" or jwk.get("kty") not in ("RSA", "EC", "OKP"):
            continue  # encryption and shared-secret keys: never for our signatures
        try:
            key = jwt.PyJWK(jwk).key
        except Exception as exc:  # untrusted input: PyJWT and cryptography raise many kinds
            skipped.append(f"{name} ({clean(str(exc) or type(exc).__name__, 80)})")
            continue
        crv, alg = jwk.get("crv"), jwk.get("alg")
        keys.setdefault(kid, []).append(SigningKey(
            jwk["kty"], crv if isinstance(crv, str) else None,
            alg if isinstance(alg, str) else None, key,
            json.dumps(jwk, sort_keys=True, default=str)))
    return keys, skipped


@dataclass
class _Set:
    """A key set as fetched, and when (by the cache's clock)."""

    keys: Keys
    fetched_at: float

    def __post_init__(self) -> None:
        # a token naming no key id may be signed by any key of the set (RFC 7515: kid is
        # optional): the keys published without one first, then the others
        self.any_key = [k for kid in sorted(self.keys, key=lambda kid: kid is not None)
                        for k in self.keys[kid]]

    def get(self, kid: str | None) -> list[SigningKey] | None:
        return self.keys.get(kid) if kid is not None else (self.any_key or None)


class JwksCache:
    """The key set of one JWKS URL (or of an issuer's discovery document)."""

    def __init__(self, issuer: str, jwks_url: str | None = None, *,
                 clock: Callable[[], float] = time.monotonic,
                 fetch: Callable[[str], Any] = fetch_json) -> None:
        self.issuer = issuer
        self.jwks_url = jwks_url
        self._discovered = jwks_url is None  # the address comes from the issuer's metadata
        self.fetches = 0
        self._clock = clock
        self._fetch = fetch
        self._set: _Set | None = None
        self._flight: anyio.Event | None = None
        self._limiter: anyio.CapacityLimiter | None = None
        self._failed_until = -math.inf
        self._failure = ""
        # refetches that found nothing new: a bucket of MISS_BURST, refilled one per cooldown
        self._misses_left = float(MISS_BURST)
        self._misses_counted_at = -math.inf

    def cached(self, kid: str | None) -> list[SigningKey] | None:
        """The keys for ``kid`` in a set still fresh; None when a fetch is needed first."""
        current = self._set
        if current is None or self._clock() - current.fetched_at >= MAX_AGE:
            return None
        return current.get(kid)

    async def keys_for(self, kid: str | None, failed: list[SigningKey] | None = None
                       ) -> list[SigningKey]:
        """The issuer's current keys for ``kid``; raises NoKey or IssuerUnavailable.
        ``failed``: the keys a signature just failed with: return others, or raise NoKey."""
        found = self.cached(kid)
        if found and not _same(found, failed):
            return found
        if self._flight is None:  # else: wait for the fetch under way, whoever started it
            now = self._clock()
            if now < self._failed_until:
                raise IssuerUnavailable(self._failure, self._failed_until - now)
            allowed = self._misses_allowed(now)
            if self._fresh() and allowed < 1:
                if failed is not None or kid is None:
                    raise NoKey(f"the issuer's key set has no {'other ' if failed else ''}"
                                f"key {_kid(kid)} (refetched at most every "
                                f"{MISS_COOLDOWN:g} s)")
                # a key id the set did not hold when last fetched, and no refetch allowed
                # now: the token may be signed by a key the issuer has just published, so
                # it is not refused for good (401 has its client re-authorize, to be
                # refused again) but told when the set will be looked at again (503)
                raise IssuerUnavailable(
                    f"the issuer's key set held no key {_kid(kid)} when last fetched, and "
                    f"it was refetched {MISS_BURST} times in a row for key ids it did not "
                    f"hold: it is refetched again within {math.ceil(self._refill(allowed)):d}"
                    " s (retry then)", self._refill(allowed))
        await self._refresh()
        found = self.cached(kid)
        if found and not _same(found, failed):
            return found
        if not self._fresh() or self._failure:
            raise IssuerUnavailable(self._failure or "the issuer's key set is not available",
                                    max(0.0, self._failed_until - self._clock()))
        now = self._clock()
        # several tokens waiting on one fetch miss together: they count as one
        self._misses_left = max(0.0, self._misses_allowed(now) - 1)
        self._misses_counted_at = now
        raise NoKey(f"the issuer's key set has no {'other ' if failed else ''}key {_kid(kid)}")

    def _misses_allowed(self, now: float) -> float:
        """How many refetches finding nothing new may happen now (the bucket, refilled)."""
        return min(float(MISS_BURST), self._misses_left
                   + max(0.0, now - self._misses_counted_at) / MISS_COOLDOWN)

    @staticmethod
    def _refill(allowed: float) -> float:
        """Seconds until the bucket holds one refetch again."""
        return max(0.0, (1.0 - allowed) * MISS_COOLDOWN)

    def _fresh(self) -> bool:
        return self._set is not None and self._clock() - self._set.fetched_at < MAX_AGE

    async def _refresh(self) -> None:
        """Fetch the set, or wait for the fetch under way."""
        if self._flight is not None:
            await self._flight.wait()
            return
        self._flight = flight = anyio.Event()
        try:
            if self._limiter is None:
                self._limiter = anyio.CapacityLimiter(1)
            keys: Keys | None = None
            with anyio.move_on_after(FETCH_TIMEOUT * 2 + 1):
                keys = await anyio.to_thread.run_sync(self._fetch_keys, limiter=self._limiter,
                                                      abandon_on_cancel=True)
            if keys is None:
                raise FetchError(f"did not answer within {FETCH_TIMEOUT:g} s")
            self._set = _Set(keys, self._clock())
            self._failure = ""
        except FetchError as exc:
            self._failed_until = self._clock() + FAIL_COOLDOWN
            self._failure = f"the issuer's key set is unavailable: {exc}"
            log.warning("%s; tokens that need it are refused for %g s", self._failure,
                        FAIL_COOLDOWN)
        finally:
            self._flight = None
            flight.set()

    def _fetch_keys(self) -> Keys:
        """Blocking: the issuer's metadata (unless the set's URL was given) and the set."""
        self.fetches += 1
        if self._discovered:
            self._rediscover()
        assert self.jwks_url is not None
        try:
            keys, skipped = parse_jwks(self._fetch(self.jwks_url))
        except FetchError as exc:
            raise FetchError(f"{clean(self.jwks_url, 120)} {exc}") from None
        if skipped:
            log.warning("the issuer's key set %s: left out %s", clean(self.jwks_url, 120),
                        "; ".join(skipped[:5]))
        if not keys:
            log.warning("the issuer's key set %s holds no usable signing key",
                        clean(self.jwks_url, 120))
        return keys

    def _rediscover(self) -> None:
        """Blocking: read the issuer's metadata again with each fetch of the set (an issuer
        may move its key set: the old address may still answer with the old keys). When
        the metadata cannot be read now, the address it named before is used, said once."""
        try:
            found = self._discover()
        except FetchError as exc:
            if self.jwks_url is None:
                raise
            log.warning("the issuer's metadata cannot be read now (%s); its key set is read "
                        "from %s as before", exc, clean(self.jwks_url, 120))
            return
        if self.jwks_url is not None and found != self.jwks_url:
            log.warning("the issuer's metadata now names its key set at %s (was %s)",
                        clean(found, 120), clean(self.jwks_url, 120))
        self.jwks_url = found

    def _discover(self) -> str:
        """Blocking: the ``jwks_uri`` of the issuer's metadata, from the first of
        :func:`discovery_urls` that is there (a 4xx answer: try the next; any other failure
        ends the search). The document must name this issuer (RFC 8414 §3.3, OIDC Discovery
        §4.3) when it names one: else its keys are another issuer's."""
        urls = discovery_urls(self.issuer)
        for index, url in enumerate(urls):
            try:
                document = self._fetch(url)
            except FetchError as exc:
                if exc.status is None or not 400 <= exc.status < 500:
                    raise FetchError(f"the discovery document {clean(url, 120)} {exc}"
                                     ) from None
                if index + 1 < len(urls):
                    continue
                raise FetchError("the issuer publishes no metadata (each answered HTTP 4xx: "
                                 f"{', '.join(clean(u, 120) for u in urls)}); give "
                                 "--auth-jwks-url") from None
            if not isinstance(document, dict):
                raise FetchError(f"{clean(url, 120)} is not a JSON object")
            named = document.get("issuer")
            if named is not None and named != self.issuer:
                shown = clean(named, 120) if isinstance(named, str) else type(named).__name__
                raise FetchError(f"{clean(url, 120)} names the issuer {shown!r}, not "
                                 f"{clean(self.issuer, 120)!r} (--auth-issuer must be the "
                                 "issuer exactly as its tokens and metadata name it)")
            jwks = document.get("jwks_uri")
            if not isinstance(jwks, str):
                raise FetchError(f"{clean(url, 120)} names no jwks_uri (give --auth-jwks-url)")
            return jwks
        raise AssertionError("unreachable: discovery_urls is never empty")


def discovery_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be, in the order tried (the MCP authorization spec's
    list, OIDC's own address first): ``<issuer>/.well-known/openid-configuration`` (OIDC
    Discovery), the OAuth 2.0 authorization server metadata (RFC 8414: the well-known path
    inserted before the issuer's path), and OIDC's address inserted the same way."""
    from urllib.parse import urlsplit

    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    root = f"{parts.scheme}://{parts.netloc}"
    urls = [issuer.rstrip("/") + "/.well-known/openid-configuration",
            f"{root}/.well-known/oauth-authorization-server{path}",
            f"{root}/.well-known/openid-configuration{path}"]
    return list(dict.fromkeys(urls))


def _same(keys: list[SigningKey], failed: list[SigningKey] | None) -> bool:
    return failed is not None and [k.published for k in keys] == [k.published for k in failed]


def _kid(kid: str | None) -> str:
    return repr(clean(kid, 60)) if kid is not None else "(the token names no key id)"
