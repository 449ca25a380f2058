"""The credentials of an OpenAPI server: ``openapi.security`` mapped onto the document's
``securitySchemes`` (headers and query parameters carrying the configured secrets), which of
them each operation is sent (its security requirement), and the header names those schemes
claim (never an argument the model fills)."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from toolhost.backends.http_headers import framing_reason
from toolhost.config.checks import Checker
from toolhost.config.tree import Path
from toolhost.excerpt import cut
from toolhost.gateway.openapi_doc import OpenApiDoc

__all__ = ["Credentials", "scheme_headers", "scheme_queries", "security", "taken_headers"]

_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")  # RFC 9110 token: a header's name
_HEADER_VALUE = re.compile(r"[\x21-\x7e]+(?:[ \t]+[\x21-\x7e]+)*")  # RFC 9110 field-value
_COOKIE_VALUE = re.compile(r"[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*")  # RFC 6265


@dataclass(frozen=True)
class Credentials:
    """The configured credentials of an OpenAPI server, by security scheme name: the header
    (``Cookie`` holds one ``name=value``) or query parameter each is carried in."""

    headers: dict[str, dict[str, str]] = field(default_factory=dict)
    query: dict[str, dict[str, str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.headers or self.query)

    def sent(self, schemes: Iterable[str] | None = None) -> tuple[dict[str, str],
                                                                   dict[str, str]]:
        """The headers and query parameters of ``schemes`` (all configured ones when None),
        the cookies of several joined into one ``Cookie`` header."""
        chosen = set(self.headers) | set(self.query) if schemes is None else set(schemes)
        headers: dict[str, str] = {}
        query: dict[str, str] = {}
        cookies: list[str] = []
        for name in self.headers:  # configured order, so a Cookie header is stable
            if name in chosen:
                for header, value in self.headers[name].items():
                    if header == "Cookie":
                        cookies.append(value)
                    else:
                        headers[header] = value
        for name in self.query:
            if name in chosen:
                query.update(self.query[name])
        if cookies:
            headers["Cookie"] = "; ".join(cookies)
        return headers, query

    def for_operation(self, doc: OpenApiDoc, node: Mapping[str, Any]
                      ) -> tuple[frozenset[str] | None, tuple[str, ...], bool]:
        """The schemes an operation is sent (None: the document declares no requirement, so
        every configured credential goes, as it always did), the schemes it needs that
        the config does not set (when none of its alternatives is met), and whether its
        requirement is malformed (not a list, or an alternative that is not a mapping): then
        nothing is sent (fail closed: what the service asks for is unknown).

        OpenAPI's ``security`` of the operation, else the document's: a list of
        alternatives, each a set of schemes that together authorize the call. The first
        alternative whose schemes are all configured is sent; an empty alternative (``{}``
        or ``security: []``) means the call needs no credential, and then, with no other
        alternative met, none is sent: a secret never goes where the service says it is not
        needed."""
        if "security" not in node and "security" not in doc.data:
            return None, (), False
        required = node["security"] if "security" in node else doc.data["security"]
        if not isinstance(required, list) or not all(isinstance(req, Mapping)
                                                     for req in required):
            return frozenset(), (), True
        configured = set(self.headers) | set(self.query)
        options = [frozenset(map(str, req)) for req in required]
        for option in options:
            if option and option <= configured:
                return option, (), False
        if not options or any(not option for option in options):
            return frozenset(), (), False
        missing = sorted(set().union(*options) - configured)
        return frozenset(set().union(*options) & configured), tuple(missing), False


def security(check: Checker, block: Mapping[str, Any], here: Path, doc: OpenApiDoc,
             taken: Mapping[str, str] | None = None) -> Credentials:
    """The configured credentials, each in the header or query parameter its scheme says.

    ``taken`` maps the (lower-cased) headers the server block already sets to what sets
    them. Two credentials never share one header or query parameter (a request would carry
    both, or one would be lost without a word): the second is a located problem. Cookies
    of several ``apiKey`` schemes are joined into one ``Cookie`` header when sent."""
    given = check.str_map(block, here, "security") or {}
    schemes = _schemes(doc)
    found = Credentials()
    owners: dict[str, str] = dict(taken or {})  # lower-cased header or '?name' -> who sets it
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
            place = "cookie" if scheme.get("in") == "cookie" else "header"
            check.problem(where, f"security scheme {name!r} names the {place} {carrier!r}, "
                          f"which is not a valid {place} name")
            continue
        if kind == "apiKey" and scheme.get("in") == "query" and not carrier:
            check.problem(where, f"security scheme {name!r} names no query parameter (its "
                          "'name' is empty): the service could not read the credential")
            continue
        framing = framing_reason(carrier) if scheme.get("in") == "header" else None
        if kind == "apiKey" and framing:
            check.problem(where, f"security scheme {name!r} would send the credential in "
                          f"the header {carrier!r}: {framing}")
            continue
        http = str(scheme.get("scheme", "")).lower() if kind == "http" else ""
        if kind == "http" and http not in ("basic", "bearer"):
            check.problem(where, f"security scheme {name!r} is http {cut(http, 40)!r}, "
                          "which is not supported (http basic and bearer are): the secret "
                          "would be sent in a form the service does not read")
            continue
        carried = _carrier(kind, scheme.get("in"), carrier)
        if carried is None:
            check.problem(where, f"security scheme {name!r} ({kind}) is not supported")
            continue
        key = carried if carried.startswith("?") else carried.lower()
        owner = owners.get(key)
        if owner is not None and not (key == "cookie" and owner.startswith("security scheme")):
            what = f"query parameter {carried[1:]!r}" if key.startswith("?") else \
                f"header {carried!r}"
            check.problem(where, f"security scheme {name!r} would send its credential in "
                          f"the {what}, which {owner} already sets",
                          "configure one credential for it")
            continue
        odd = _value_problem(value, key, http)
        if odd:
            check.problem(where, odd, "check the secret it comes from")
            continue
        owners[key] = f"security scheme {name!r}"
        if http == "basic":
            if ":" not in value:
                check.problem(where, "basic credentials are written 'user:password'")
                continue
            found.headers[name] = {
                "Authorization": "Basic " + base64.b64encode(value.encode()).decode()}
        elif kind in ("http", "oauth2", "openIdConnect"):
            found.headers[name] = {"Authorization": f"Bearer {value}"}
        elif key.startswith("?"):
            found.query[name] = {carrier: value}
        elif key == "cookie":
            found.headers[name] = {"Cookie": f"{carrier}={value}"}
        else:
            found.headers[name] = {carrier: value}
    return found


def _value_problem(value: str, key: str, http: str) -> str | None:
    """Why ``value`` cannot be sent in its carrier as it is (never naming a character of it:
    it is a secret), or None."""
    if key.startswith("?") or http == "basic":
        return None  # percent-encoded / base64-encoded
    if not value:
        return "the value is empty (the request would carry no credential)"
    if not _HEADER_VALUE.fullmatch(value):
        return "the value has a character outside visible ASCII (an HTTP header value " \
               "cannot carry it as it is; every call would fail)"
    if key == "cookie" and not _COOKIE_VALUE.fullmatch(value):
        return "the value has a space, '\"', ',', ';' or '\\' (a cookie value cannot " \
               "carry one: ';' would start another cookie)"
    return None


def taken_headers(headers: Mapping[str, str], auth: Mapping[str, Any] | None
                  ) -> dict[str, str]:
    """The (lower-cased) headers a server block's ``headers:`` and ``auth:`` set, each with
    what sets it (for ``security``)."""
    taken = {str(h).lower(): f"the server's headers: ({h!r})" for h in headers}
    kind = auth.get("type") if auth else None
    if auth and kind in ("bearer", "basic"):
        taken["authorization"] = f"the server's auth: ({kind})"
    elif auth and kind == "header":
        taken[str(auth.get("name", "")).lower()] = "the server's auth: (header)"
    return taken


def _carrier(kind: object, place: object, name: str) -> str | None:
    """The header (or '?' and the query parameter) a scheme carries its credential in."""
    if kind in ("http", "oauth2", "openIdConnect"):
        return "Authorization"
    if kind == "apiKey" and name and place in ("header", "query", "cookie"):
        return "Cookie" if place == "cookie" else f"?{name}" if place == "query" else name
    return None


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
