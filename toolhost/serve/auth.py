"""OAuth 2.1 / OIDC access tokens for ``toolhost serve --transport http`` (MCP authorization).

toolhost is the *resource server*: it never issues tokens, it checks them. Each request's
``Authorization: Bearer <JWT>`` must be signed by a key of the issuer's JWKS (fetched once,
cached, refetched for an unknown key id), name the configured issuer and audience, and be
within its validity window (``exp``, ``nbf``; 30 s of leeway). Only asymmetric algorithms are
accepted (RS*, PS*, ES*, EdDSA): ``none`` and shared-secret HS* never are. The caller it
vouches for (``sub``, ``scope``/``scp``, a groups claim) reaches permission rules and the
audit log (toolhost.permissions.caller). A request without a valid token is 401 with
``WWW-Authenticate: Bearer resource_metadata=...`` pointing at the protected resource
metadata (RFC 9728) served at ``/.well-known/oauth-protected-resource``.

PyJWT (``pip install 'toolhost[auth]'``) is imported only when auth is configured.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from toolhost.errors import ToolhostError
from toolhost.excerpt import cut
from toolhost.permissions.caller import Caller

__all__ = ["ALGORITHMS", "AUTH_EXTRA_HINT", "AuthError", "JwtAuth"]

ALGORITHMS = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512",
              "EdDSA")
AUTH_EXTRA_HINT = "token validation needs PyJWT: pip install 'toolhost[auth]'"
MAX_TOKEN = 16 * 1024
LEEWAY = 30


class AuthError(Exception):
    """Why a request's token was refused (said in the 401's ``error_description``)."""


@dataclass
class JwtAuth:
    """Validates access tokens of one issuer for one audience."""

    issuer: str
    audience: str
    jwks_url: str | None = None  # default: the issuer's OIDC discovery document
    groups_claim: str = "groups"
    algorithms: Sequence[str] = ALGORITHMS

    def __post_init__(self) -> None:
        try:
            import jwt  # noqa: F401
        except ImportError as exc:
            raise ToolhostError(f"{AUTH_EXTRA_HINT} ({exc})") from None
        bad = [a for a in self.algorithms if a not in ALGORITHMS]
        if bad:
            raise ToolhostError(f"--auth-algorithm {bad[0]}: only asymmetric algorithms "
                                f"({', '.join(ALGORITHMS)})")
        self._client: Any = None

    def _jwks(self) -> Any:
        import jwt

        if self._client is None:
            url = self.jwks_url or _discover_jwks(self.issuer)
            self._client = jwt.PyJWKClient(url, cache_keys=True, lifespan=3600, timeout=10)
        return self._client

    def verify(self, token: str) -> Caller:
        """The caller ``token`` vouches for; raises AuthError. Blocking: fetches the JWKS."""
        import jwt

        if len(token) > MAX_TOKEN:
            raise AuthError("the token is too long")
        try:
            key = self._jwks().get_signing_key_from_jwt(token)
            claims = jwt.decode(token, key.key, algorithms=list(self.algorithms),
                                audience=self.audience, issuer=self.issuer, leeway=LEEWAY,
                                options={"require": ["exp", "iss", "aud", "sub"]})
        except jwt.PyJWKClientError as exc:
            raise AuthError(f"no signing key for the token ({cut(str(exc), 200)})") from None
        except jwt.InvalidTokenError as exc:
            raise AuthError(cut(str(exc), 200)) from None
        return _caller(claims, self.groups_claim)

    async def authenticate(self, header: str | None) -> Caller:
        """The caller of an ``Authorization`` header; raises AuthError."""
        scheme, _, token = (header or "").partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise AuthError("a bearer token is required")
        return await anyio.to_thread.run_sync(self.verify, token.strip())

    def resource_metadata(self, resource: str) -> dict[str, Any]:
        """The protected resource metadata (RFC 9728) for ``resource`` (the MCP URL)."""
        return {"resource": resource, "authorization_servers": [self.issuer],
                "bearer_methods_supported": ["header"],
                "resource_signing_alg_values_supported": list(self.algorithms)}


def _caller(claims: Mapping[str, Any], groups_claim: str) -> Caller:
    scopes = claims.get("scope", claims.get("scp", ""))
    scope_set = set(scopes.split()) if isinstance(scopes, str) else {
        s for s in scopes if isinstance(s, str)} if isinstance(scopes, list) else set()
    groups = claims.get(groups_claim, [])
    group_set = {groups} if isinstance(groups, str) else {
        g for g in groups if isinstance(g, str)} if isinstance(groups, list) else set()
    return Caller(str(claims["sub"]), frozenset(scope_set), frozenset(group_set),
                  str(claims.get("iss", "")))


def _discover_jwks(issuer: str) -> str:
    url = issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            document = json.loads(answer.read(1024 * 1024))
    except (OSError, ValueError) as exc:
        raise AuthError(f"cannot read the issuer's discovery document {url}: "
                        f"{cut(str(exc), 200)}") from None
    jwks = document.get("jwks_uri") if isinstance(document, dict) else None
    if not isinstance(jwks, str):
        raise AuthError(f"{url} names no jwks_uri (give --auth-jwks-url)")
    return jwks
