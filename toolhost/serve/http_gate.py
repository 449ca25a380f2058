"""Who may reach ``toolhost serve --transport http``: the checks every ``/mcp`` request passes
before anything else is read.

* DNS rebinding: the ``Host`` the request was addressed to (``HostCheck``) and the page's
  ``Origin`` (loopback, or ``--allow-origin``);
* the static bearer token (``--token-env``), compared in constant time;
* OAuth access tokens (``--auth-issuer``, ``toolhost.serve.auth.JwtAuth``): the caller, or
  the 401/403 (with its ``WWW-Authenticate`` challenge) or 503 (the issuer's keys cannot be
  fetched) refusing the request.
"""

from __future__ import annotations

import hmac
import logging
import math
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.responses import Response

from toolhost.excerpt import cut
from toolhost.permissions.callers.identity import Caller
from toolhost.serve.base import error_response
from toolhost.serve.http_limits import HostCheck, JsonAnswer

__all__ = ["LOOPBACK", "Gate"]

log = logging.getLogger("toolhost.serve")

LOOPBACK = {"localhost", "127.0.0.1", "::1", "[::1]"}


class Gate:
    """The Host, Origin and token checks of one server at ``path``."""

    def __init__(self, *, path: str, bind: str, token: str | None,
                 allowed_origins: tuple[str, ...], allowed_hosts: tuple[str, ...],
                 auth: Any) -> None:
        self.path = path
        self.auth = auth  # toolhost.serve.auth.JwtAuth, or None
        self._hosts = HostCheck(bind, allowed_hosts)
        self._token = token
        self._allowed_origins = set(allowed_origins)

    def refusal(self, request: Request) -> Response | None:
        """None when the request may go on, else the answer refusing it (421, 403, 401)."""
        # DNS rebinding: a web page (or a name that resolves to us) must not reach a local
        # server, so both the Host it was addressed to and the page's Origin are checked.
        refusal = self._hosts.refusal(request.headers.get("host"))
        if refusal is not None:
            return refusal
        origin = request.headers.get("origin")
        if origin is not None and not self.origin_allowed(origin):
            return JsonAnswer(error_response(
                None, -32600, f"Forbidden: origin {cut(origin, 100)!r} is not allowed "
                "(toolhost serve --allow-origin)"), status_code=403)
        if self._token is not None:
            sent = request.headers.getlist("authorization")  # two: refused, none guessed
            scheme, _, given = (sent[0] if len(sent) == 1 else "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                    given.strip().encode(), self._token.encode()):
                return JsonAnswer(error_response(None, -32600, "missing or wrong bearer token"),
                                  status_code=401,
                                  headers={"www-authenticate": 'Bearer realm="toolhost"'})
        return None

    def origin_allowed(self, origin: str) -> bool:
        """Whether a browser page of ``origin`` may call: a loopback page, or one named with
        ``--allow-origin`` (exactly)."""
        return loopback_origin(origin) or origin in self._allowed_origins

    def cors_allowed(self, origin: str) -> bool:
        """Whether a browser page of ``origin`` may read answers (CORS): only the origins
        named with ``--allow-origin``. A loopback page passes the Origin check (a local tool
        is not refused) but is not granted CORS unless named: any page some local server
        serves would otherwise reach the tools from the browser."""
        return origin in self._allowed_origins

    def host_refusal(self, header: str | None) -> Response | None:
        """The 421 refusing a ``Host`` this server is not reached by, or None."""
        return self._hosts.refusal(header)

    def resource_metadata(self, request: Request) -> Response:
        """``/.well-known/oauth-protected-resource``: 404 without OAuth access tokens."""
        if self.auth is None:
            return Response(status_code=404)
        return JsonAnswer(self.auth.resource_metadata(self._resource(request)))

    def _resource(self, request: Request) -> str:
        """The resource identifier: ``--auth-resource``, else the URL the request was sent
        to (its scheme and Host header)."""
        configured: str | None = getattr(self.auth, "resource", None)
        return configured or str(request.base_url).rstrip("/") + self.path

    async def caller(self, request: Request) -> Caller | Response | None:
        """The caller an OAuth access token names (None without ``--auth-issuer``), or the
        answer refusing the request."""
        if self.auth is None:
            return None
        from toolhost.serve.auth import AuthError, metadata_url

        try:
            given_all = request.headers.getlist("authorization")
            if len(given_all) > 1:  # which one counts is a proxy's guess: refuse them all
                raise AuthError(f"send one Authorization header; this request has "
                                f"{len(given_all)}")
            caller: Caller = await self.auth.authenticate(request.headers.get("authorization"))
        except AuthError as exc:
            metadata = metadata_url(self._resource(request))
            given = "authorization" in request.headers
            challenge = f'Bearer resource_metadata="{metadata}"'
            log.info("refused a request: %s", exc)
            if exc.status == 503:  # the issuer's keys cannot be fetched: not the token's fault
                # when the issuer will be asked again (the rest of its cooldown): sooner,
                # the retry is refused the same way
                wait = max(1, math.ceil(getattr(exc, "retry_after", 5.0)))
                return JsonAnswer(error_response(None, -32000, f"Service unavailable: {exc}"),
                                  status_code=503, headers={"retry-after": str(wait)})
            if given:
                # printable ASCII only: a token's own text must not shape our header
                reason = "".join(c if " " <= c <= "~" and c not in '"\\' else "?"
                                 for c in str(exc))[:200]
                challenge += f', error="invalid_token", error_description="{reason}"'
            return JsonAnswer(error_response(None, -32600, f"Unauthorized: {exc}"),
                              status_code=exc.status, headers={"www-authenticate": challenge})
        return caller


def loopback_origin(origin: str) -> bool:
    """Whether ``origin`` is one loopback origin as a browser writes it: ``http(s)://`` and a
    loopback host, an optional port, nothing else. A list (``http://127.0.0.1:1,
    http://evil.example``), a path, user info or a bad port is not one: its host was read as
    the first name in it, and the check passed a value that names another origin too."""
    if not origin.isascii() or any(c in origin for c in " ,\t@"):
        return False
    try:
        parts = urlsplit(origin)
        _ = parts.port  # a port that is not a number in range: ValueError
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or parts.path or parts.query \
            or parts.fragment or "?" in origin or "#" in origin:
        return False
    return (parts.hostname or "") in LOOPBACK
