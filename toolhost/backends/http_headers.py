"""Which request headers a config, a tool's arguments or an imported document may set.

The HTTP client writes a request's framing itself: ``Host`` from the URL, ``Content-Length`` or
``Transfer-Encoding`` from the body, ``Connection``. A second copy of one of those, or a
``Host`` naming another site, is how a request is re-targeted behind a shared front (a
reverse proxy or CDN routing by ``Host``) or desynchronised on a kept-alive connection that
carries the server's credentials. So:

- ``framing_reason``: a framing or hop-by-hop header (``Host``, ``Content-Length``,
  ``Transfer-Encoding``, ``Connection``, ``Keep-Alive``, ``TE``, ``Trailer``, ``Upgrade``,
  ``Expect``, ``Proxy-*``) is never written by a config (server ``headers:``, ``auth:``, a
  tool's ``http.headers``), literally or from an argument;
- ``server_header_names``: the headers a server block sets (``headers:``, ``auth:``, an
  OpenAPI ``security:`` value) are never replaced by a value an argument prints;
- ``model_header_reason``: an OpenAPI header parameter (written by whoever wrote the document,
  filled by the model) is also never a credential (``Authorization``, ``Cookie``, any apiKey
  header of the document's security schemes), a routing header (``Forwarded``,
  ``X-Forwarded-*``, ``X-Original-URL``, method overrides) or a content header the backend
  sets (``Accept``, ``Content-Type``, ``Accept-Encoding``, ``Content-Encoding``).

Names compare case-insensitively, as HTTP does. ``model_header_reason`` compares them as the
servers behind a stack may (``header_key``): Unicode compatibility forms folded (NFKC), case
folded, whitespace and invisible characters dropped, ``_`` and ``-`` alike (CGI and WSGI hand
``X_Forwarded_Host`` and ``X-Forwarded-Host`` to the application as the same
``HTTP_X_FORWARDED_HOST``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["FRAMING", "framing_reason", "header_key", "model_header_reason", "query_key",
           "query_reason", "server_header_names", "tool_header_problem"]

FRAMING = frozenset({"host", "content-length", "transfer-encoding", "connection", "keep-alive",
                     "te", "trailer", "upgrade", "expect", "http2-settings"})
_ROUTING = frozenset({"forwarded", "via", "max-forwards", "x-original-url", "x-rewrite-url",
                      "x-http-method-override", "x-http-method", "x-method-override",
                      "x-host", "x-real-ip", "x-original-host", "x-proxyuser-ip"})
_CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})
_CONTENT = frozenset({"accept", "content-type", "accept-encoding", "content-encoding"})


def framing_reason(name: str) -> str | None:
    """Why no config may write the header ``name`` (None when it may)."""
    low = name.lower()
    if low in FRAMING or low.startswith("proxy-"):
        return (f"{name!r} is a framing or hop-by-hop header: the HTTP client writes it "
                "(Host from the URL, the length from the body), and a second one could send "
                "the request to another site or desynchronise the connection")
    return None


def server_header_names(headers: Iterable[str], auth: Mapping[str, Any] | None) -> frozenset[str]:
    """The (lower-cased) names of the headers a server block's ``headers:`` and ``auth:``
    set on every request."""
    names = {str(h).lower() for h in headers}
    kind = (auth or {}).get("type")
    if kind in ("bearer", "basic"):
        names.add("authorization")
    elif kind == "header" and auth is not None:
        names.add(str(auth.get("name", "")).lower())
    names.add("accept-encoding")  # the client's: only the codings it inflates boundedly
    return frozenset(names)


def header_key(name: str) -> str:
    """``name`` as a lenient server may compare it: ``X_Forwarded_Host``, ``x-forwarded-host``,
    `` X-Forwarded-Host`` and its full-width spelling are all ``x-forwarded-host``."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in text if not c.isspace() and unicodedata.category(c) != "Cf")
    return text.replace("_", "-")


def model_header_reason(name: str, server_headers: frozenset[str]) -> str | None:
    """Why the model may not fill an imported document's header parameter ``name`` (compared
    by ``header_key``, against ``server_headers`` compared the same way)."""
    low = header_key(name)
    if low in FRAMING or low.startswith("proxy-"):
        return "a framing or hop-by-hop header, which the HTTP client writes"
    if low in {header_key(h) for h in server_headers}:
        return "the server's credentials or headers go in it (headers:, auth:, security schemes)"
    if low in _CREDENTIALS:
        return "a credential header, which only the config sets"
    if low in _ROUTING or low.startswith("x-forwarded-"):
        return "a routing header, which could send the request to another site"
    if low in _CONTENT:
        return "a content header, which the http backend sets"
    return None


def query_key(name: str) -> str:
    """A query parameter name as a lenient server may read it: PHP turns ``.``, `` `` and
    ``[`` into ``_`` (``api.key`` is ``api_key``), other stacks ignore case or ``-``/``_``."""
    text = unicodedata.normalize("NFKC", name).casefold()
    text = "".join(c for c in text if unicodedata.category(c) != "Cf").strip()
    return "".join("_" if c in ".-[ " or c.isspace() else c for c in text)


def query_reason(name: str, credential_names: Iterable[str]) -> str | None:
    """Why the model may not fill an imported document's query parameter ``name``: a server
    may read it as the query parameter a credential is sent in. ``api_key[]`` and
    ``api_key[x]`` are ``api_key`` too: PHP, Rails and Node's ``qs`` read them as that
    parameter (an array or object of it), after the credential's ``api_key=...``."""
    keys = {query_key(n) for n in credential_names}
    text = unicodedata.normalize("NFKC", name)
    if query_key(name) in keys or ("[" in text and query_key(text.split("[", 1)[0]) in keys):
        return ("a server may read it as the query parameter the server's credential goes "
                "in (security schemes)")
    return None


def tool_header_problem(values: Mapping[str, str], server_headers: frozenset[str]
                        ) -> tuple[str, str] | None:
    """(header, why) for the first header of a tool's ``http.headers`` that may not be
    written: a framing header, a name written twice (case-insensitively), or a header the
    server block sets whose value would come from an argument (the model would choose the
    credential the call runs with). A literal override of a server header is the config's."""
    from toolhost.backends import templating

    seen: dict[str, str] = {}
    for name, source in values.items():
        framing = framing_reason(name)
        if framing:
            return name, framing
        low = name.lower()
        if low in seen:
            return name, (f"{seen[low]!r} and {name!r} are the same header (names are "
                          "case-insensitive); write it once")
        seen[low] = name
        printed = templating.placeholders([source]) - set(templating.ENV.globals)
        if low in server_headers and printed:
            return name, (f"the server sets {name!r} (headers: or auth:), and this value "
                          f"comes from {', '.join(sorted(printed))}: an argument would "
                          "replace the server's credential; write a literal, or drop it here")
    return None
