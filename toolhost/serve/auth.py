"""OAuth 2.1 / OIDC access tokens for ``toolhost serve --transport http`` (MCP authorization).

toolhost is the *resource server*: it never issues tokens, it checks them. Each request's
``Authorization: Bearer <JWT>`` must be signed by a key of the issuer's current JWK set
(toolhost.serve.jwks: trusted 5 minutes, refetched for an unknown key id), with an algorithm
that fits that key, name the configured issuer and audience, and be within its validity
window (``exp``, ``nbf``; 30 s of leeway). A token whose header names JWS extensions
(``crit``, ``b64``) is refused: toolhost understands none. Only asymmetric algorithms are
accepted (RS*, PS*, ES*, EdDSA): ``none`` and shared-secret HS* never are. The caller it
vouches for (``sub``, ``scope``/``scp``, a groups claim; toolhost.permissions.callers.claims)
reaches permission rules and the audit log (toolhost.permissions.callers.identity). A token whose
key is in the current set is checked on the event loop, without a thread and without
waiting for any fetch. A request without a valid token is 401 with
``WWW-Authenticate: Bearer resource_metadata=...`` pointing at the protected resource
metadata (RFC 9728) served at ``/.well-known/oauth-protected-resource``; one whose key
cannot be fetched now is :class:`IssuerUnavailableError` (``status`` 503).

PyJWT (``pip install 'toolhost[auth]'``) is imported only when auth is configured.
"""

from __future__ import annotations

import base64
import binascii
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from toolhost.errors import ToolhostError
from toolhost.permissions.callers.identity import Caller
from toolhost.serve.jwks_fetch import clean

if TYPE_CHECKING:
    from toolhost.serve.jwks import SigningKey

__all__ = ["ALGORITHMS", "AUTH_EXTRA_HINT", "MAX_KEYS_TRIED", "AuthError",
           "IssuerUnavailableError", "JwtAuth", "checked_resource", "metadata_url"]

log = logging.getLogger("toolhost.serve.auth")

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
              "EdDSA")
AUTH_EXTRA_HINT = "token validation needs PyJWT: pip install 'toolhost[auth]'"
MAX_TOKEN = 16 * 1024
MAX_KEYS_TRIED = 4  # keys of one kid (and algorithm) a signature is checked against
LEEWAY = 30
WARN_EVERY = 60.0
# the key type (and curve) each algorithm needs
_FITS = {"RS": ("RSA", None), "PS": ("RSA", None), "ES256": ("EC", "P-256"),
         "ES384": ("EC", "P-384"), "ES512": ("EC", "P-521"), "EdDSA": ("OKP", None)}


class AuthError(Exception):
    """Why a request's token was refused (said in the 401's ``error_description``)."""

    status: ClassVar[int] = 401


class IssuerUnavailableError(AuthError):
    """The issuer's key set cannot be fetched now: the token cannot be checked (503).
    ``retry_after``: seconds until the issuer is asked again (the answer's Retry-After)."""

    status: ClassVar[int] = 503
    retry_after: float = 5.0


def _fits(alg: str, key: SigningKey) -> bool:
    """Whether a token signed with ``alg`` can be checked with ``key`` (its type, curve and
    published algorithm): anything else is refused before PyJWT sees the pair."""
    kty, crv = _FITS.get(alg, _FITS.get(alg[:2], ("", None)))
    if key.key_type != kty or (crv is not None and key.curve != crv):
        return False
    return key.alg in (None, alg)


def claims_refusal(token: str, issuer: str, audience: str, now: float) -> str | None:
    """Why the unverified claims of ``token`` refuse it whatever its signature, or None: a
    cheap read of the payload (no PyJWT decode: this runs for every request), refusing only
    what ``jwt.decode`` with our options would refuse too."""
    parts = token.split(".")
    if len(parts) != 3:
        return "not a JWT (it must have three parts)"
    try:
        claims = json.loads(base64.urlsafe_b64decode(parts[1] + "=" * (-len(parts[1]) % 4)))
    except (ValueError, binascii.Error):
        return "not a JWT (its payload is not base64url JSON)"
    except RecursionError:  # nested deeper than the JSON reader goes (a 500 otherwise)
        return "not a JWT (its payload is JSON nested too deep)"
    if not isinstance(claims, dict):
        return "not a JWT (its payload is not a JSON object)"
    for claim in ("exp", "iss", "aud", "sub"):
        if claim not in claims:
            return f'Token is missing the "{claim}" claim'
    # the times as PyJWT reads them (int() of the value: a string of digits too), so a
    # token whose times refuse it is a 401 before any key is looked up, never a 503
    exp = _as_int(claims["exp"])
    if exp is None:
        return "Expiration Time claim (exp) must be an integer."
    if exp <= now - LEEWAY:
        return "Signature has expired"
    for claim, name in (("iat", "Issued At"), ("nbf", "Not Before")):
        if claim not in claims:
            continue
        value = _as_int(claims[claim])
        if value is None:
            return f"{name} claim ({claim}) must be an integer."
        if value > now + LEEWAY:
            return f"The token is not yet valid ({claim})"
    if claims["iss"] != issuer:
        return "Invalid issuer"
    aud = claims["aud"]
    if not (aud == audience or (isinstance(aud, list) and audience in aud
                                and all(isinstance(a, str) for a in aud))):
        return "Audience doesn't match"
    sub = claims["sub"]
    if not isinstance(sub, str) or not sub.strip():
        return "the token's sub must be a non-empty string"
    return None


def checked_resource(url: str) -> str:
    """``--auth-resource``: an absolute http(s) URL without query or fragment (RFC 9728)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname)
        ok = ok and not parts.query and not parts.fragment and parts.port != -1
    except ValueError:
        ok = False
    if not ok:
        raise ToolhostError(f"--auth-resource {clean(url, 200)!r}: give the MCP endpoint's "
                            "URL as clients reach it, e.g. https://tools.example.com/mcp "
                            "(http or https, no query or fragment)")
    return url


def metadata_url(resource: str) -> str:
    """Where RFC 9728 says the metadata of ``resource`` is: the well-known path inserted
    between its host and its path."""
    from urllib.parse import urlsplit

    parts = urlsplit(resource)
    return (f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource"
            f"{parts.path.rstrip('/')}")


def _as_int(value: Any) -> int | None:
    """``int(value)`` as PyJWT takes a time claim, or None where it refuses the claim."""
    try:
        return int(value)
    except (ValueError, TypeError, OverflowError):
        return None


@dataclass
class JwtAuth:
    """Validates access tokens of one issuer for one audience."""

    issuer: str
    audience: str
    jwks_url: str | None = None  # default: the issuer's OIDC discovery document
    groups_claim: str = "groups"
    algorithms: Sequence[str] = ALGORITHMS
    # the MCP endpoint's URL as clients reach it (behind a TLS proxy, under another name);
    # None: the URL each request was sent to
    resource: str | None = None

    def __post_init__(self) -> None:
        if self.resource is not None:
            self.resource = checked_resource(self.resource)
        try:
            import jwt  # noqa: F401
        except ImportError as exc:
            raise ToolhostError(f"{AUTH_EXTRA_HINT} ({exc})") from None
        bad = [a for a in self.algorithms if a not in ALGORITHMS]
        if bad:
            raise ToolhostError(f"--auth-algorithm {bad[0]}: only asymmetric algorithms "
                                f"({', '.join(ALGORITHMS)})")
        from toolhost.serve.jwks import JwksCache

        self.keys = JwksCache(self.issuer, self.jwks_url)
        self._warned: dict[str, float] = {}

    async def verify(self, token: str) -> Caller:
        """The caller ``token`` vouches for; raises AuthError (IssuerUnavailableError when
        the issuer's keys cannot be fetched)."""
        import jwt

        from toolhost.permissions.callers.claims import ClaimsError, caller_from_claims

        if len(token) > MAX_TOKEN:
            raise AuthError("the token is too long")
        try:
            header = jwt.get_unverified_header(token)
        except (jwt.PyJWTError, TypeError, ValueError) as exc:
            raise AuthError(f"not a JWT ({clean(str(exc), 120)})") from None
        alg, kid = header.get("alg"), header.get("kid")
        if not isinstance(alg, str) or alg not in self.algorithms:
            shown = clean(alg, 20) if isinstance(alg, str) else type(alg).__name__
            raise AuthError(f"the token's algorithm {shown!r} is not accepted (only "
                            f"{', '.join(self.algorithms)})")
        if kid is not None and not isinstance(kid, str):
            raise AuthError("the token's kid must be a string")
        if "crit" in header or "b64" in header:
            # RFC 7515 §4.1.11: an extension the recipient does not understand MUST refuse
            # the token; toolhost understands none (older PyJWT releases ignore "crit")
            raise AuthError("the token names critical header extensions (crit); none are "
                            "accepted")
        self._refuse_by_claims(token)
        keys = await self._keys_for(kid)
        try:
            claims = self._decode(token, alg, kid, keys)
        except jwt.InvalidSignatureError:
            # the issuer may have re-keyed under the same kid: look at its current set once
            try:
                keys = await self._keys_for(kid, failed=keys)
            except IssuerUnavailableError:
                raise
            except AuthError:
                raise AuthError("Signature verification failed") from None
            try:
                claims = self._decode(token, alg, kid, keys)
            except jwt.InvalidSignatureError:
                raise AuthError("Signature verification failed") from None
        try:
            caller = caller_from_claims(claims, self.groups_claim)
        except ClaimsError as exc:
            raise AuthError(clean(str(exc))) from None
        self._warn_unreadable(caller)
        return caller

    def _refuse_by_claims(self, token: str) -> None:
        """Refuse (AuthError, 401) a token whose own claims fail, whatever the issuer's keys:
        expired, not yet valid, another issuer or audience, no subject. Checked before any
        key is looked up, so such a token is never answered 503 ("the issuer is unavailable:
        retry"), which would have its client retry it instead of getting a new one. Never
        stricter than PyJWT's checks after the signature (passing here proves nothing)."""
        why = claims_refusal(token, self.issuer, self.audience, time.time())
        if why is not None:
            raise AuthError(why)

    async def _keys_for(self, kid: str | None, failed: list[SigningKey] | None = None
                        ) -> list[SigningKey]:
        from toolhost.serve.jwks import IssuerUnavailable, NoKey

        try:
            return await self.keys.keys_for(kid, failed)
        except NoKey as exc:
            raise AuthError(f"no signing key for the token ({exc})") from None
        except IssuerUnavailable as exc:
            error = IssuerUnavailableError(str(exc))
            error.retry_after = exc.retry_after
            raise error from None

    def _decode(self, token: str, alg: str, kid: str | None, keys: list[SigningKey]
                ) -> dict[str, Any]:
        """The claims of ``token`` checked with the key of ``keys`` that fits ``alg``;
        raises AuthError (jwt.InvalidSignatureError as itself, to look again)."""
        import jwt

        fitting = [k for k in keys if _fits(alg, k)]
        if not fitting:
            raise AuthError(f"the token's algorithm {alg} does not fit the issuer's key "
                            f"{clean(kid or '', 60)!r} ({keys[0].key_type})")
        if kid is None and len(fitting) > MAX_KEYS_TRIED:
            raise AuthError(f"the token names no key id and {len(fitting)} keys of the "
                            f"issuer's set fit its algorithm {alg} (at most {MAX_KEYS_TRIED} "
                            "are tried): the issuer must name its key (kid)")
        # one kid may name several keys (a rotation, a merged set), no kid any key: each is
        # tried, a few at most, so a forged signature costs a bounded number of checks
        for index, key in enumerate(fitting[:MAX_KEYS_TRIED]):
            try:
                claims: dict[str, Any] = jwt.decode(
                    token, key.key, algorithms=[alg], audience=self.audience,
                    issuer=self.issuer, leeway=LEEWAY,
                    options={"require": ["exp", "iss", "aud", "sub"]})
            except jwt.InvalidSignatureError:
                if index + 1 >= min(len(fitting), MAX_KEYS_TRIED):
                    raise
            except (jwt.PyJWTError, TypeError, ValueError) as exc:
                raise AuthError(clean(str(exc) or type(exc).__name__)) from None
            else:
                return claims
        raise AssertionError("unreachable: fitting is not empty")

    async def authenticate(self, header: str | None) -> Caller:
        """The caller of an ``Authorization`` header; raises AuthError."""
        scheme, _, token = (header or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError("a bearer token is required")
        return await self.verify(token.strip())

    def _warn_unreadable(self, caller: Caller) -> None:
        """One warning line per unreadable claim shape, at most once a minute each."""
        now = time.monotonic()
        for kind, why in caller.unreadable:
            if now - self._warned.get(why, -WARN_EVERY) < WARN_EVERY:
                continue
            if len(self._warned) > 1000:
                self._warned.clear()
            self._warned[why] = now
            log.warning("caller %s: %s: rules with callers %s treat them as possibly in any "
                        "(deny and ask apply, allow does not)", clean(caller.subject, 80),
                        why, kind)

    def resource_metadata(self, resource: str) -> dict[str, Any]:
        """The protected resource metadata (RFC 9728) for ``resource`` (the MCP URL)."""
        return {"resource": resource, "authorization_servers": [self.issuer],
                "bearer_methods_supported": ["header"],
                "resource_signing_alg_values_supported": list(self.algorithms)}
