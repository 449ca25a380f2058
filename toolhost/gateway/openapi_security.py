"""The credentials of an OpenAPI server: ``openapi.security`` mapped onto the document's
``securitySchemes`` (headers and query parameters carrying the configured secrets), and the
header names those schemes claim (never an argument the model fills)."""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from toolhost.backends.http_headers import framing_reason
from toolhost.config.checks import Checker
from toolhost.config.tree import Path
from toolhost.gateway.openapi_doc import OpenApiDoc

__all__ = ["scheme_headers", "scheme_queries", "security"]

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 token: a header's name


def security(check: Checker, block: Mapping[str, Any], here: Path, doc: OpenApiDoc
              ) -> tuple[dict[str, str], dict[str, str]]:
    """Headers and query parameters that carry the configured credentials."""
    given = check.str_map(block, here, "security") or {}
    schemes = _schemes(doc)
    headers: dict[str, str] = {}
    query: dict[str, str] = {}
    for name, value in given.items():
        where = (*here, "security", name)
        scheme = schemes.get(name)
        if not isinstance(scheme, Mapping):
            check.problem(where, f"the document has no security scheme {name!r}",
                          "its schemes: " + (", ".join(map(str, schemes)) or "none"))
            continue
        kind, carrier = scheme.get("type"), str(scheme.get("name", ""))
        if any(c in value for c in "\r\n\0"):  # a header or query value cannot carry one
            check.problem(where, "the value contains a line break or NUL (an HTTP header "
                          "cannot carry one)", "check the secret it comes from: a trailing "
                          "newline from a file is the usual cause")
            continue
        if kind == "apiKey" and scheme.get("in") in ("header", "cookie") \
                and not _TOKEN.fullmatch(carrier):
            check.problem(where, f"security scheme {name!r} names the header {carrier!r}, "
                          "which is not a valid header name")
            continue
        framing = framing_reason(carrier) if scheme.get("in") == "header" else None
        if kind == "apiKey" and framing:
            check.problem(where, f"security scheme {name!r} would send the credential in "
                          f"the header {carrier!r}: {framing}")
            continue
        if kind == "http" and str(scheme.get("scheme", "")).lower() == "basic":
            if ":" not in value:
                check.problem(where, "basic credentials are written 'user:password'")
                continue
            headers["Authorization"] = "Basic " + base64.b64encode(value.encode()).decode()
        elif kind in ("http", "oauth2", "openIdConnect"):
            headers["Authorization"] = f"Bearer {value}"
        elif kind == "apiKey" and carrier and scheme.get("in") == "header":
            headers[carrier] = value
        elif kind == "apiKey" and carrier and scheme.get("in") == "query":
            query[carrier] = value
        elif kind == "apiKey" and carrier and scheme.get("in") == "cookie":
            headers["Cookie"] = f"{carrier}={value}"
        else:
            check.problem(where, f"security scheme {name!r} ({kind}) is not supported")
    return headers, query


def scheme_headers(doc: OpenApiDoc) -> frozenset[str]:
    """The (lower-cased) headers the document's security schemes carry a credential in,
    whether or not the config gives them a value."""
    names = set()
    for scheme in _schemes(doc).values():
        if not isinstance(scheme, Mapping):
            continue
        if scheme.get("type") == "apiKey" and scheme.get("in") == "header":
            names.add(str(scheme.get("name", "")).lower())
        elif scheme.get("type") == "apiKey" and scheme.get("in") == "cookie":
            names.add("cookie")
        elif scheme.get("type") in ("http", "oauth2", "openIdConnect"):
            names.add("authorization")
    return frozenset(names)


def scheme_queries(doc: OpenApiDoc) -> frozenset[str]:
    """The query parameters the document's security schemes carry a credential in, whether
    or not the config gives them a value."""
    return frozenset(str(scheme.get("name", "")) for scheme in _schemes(doc).values()
                     if isinstance(scheme, Mapping) and scheme.get("type") == "apiKey"
                     and scheme.get("in") == "query")


def _schemes(doc: OpenApiDoc) -> Mapping[str, Any]:
    components = doc.data.get("components")
    schemes = components.get("securitySchemes") if isinstance(components, Mapping) else None
    return schemes if isinstance(schemes, Mapping) else {}
