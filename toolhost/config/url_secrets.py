"""Credentials written in a URL's userinfo (``https://user:PASSWORD@host/``) or in its query
under a credential's name (``?api_key=KEY``, ``&access_token=``, ``X-Amz-Signature=``) are
secrets.

Whatever the key a URL is written under (a server's ``base_url``, an ``mcp.url``, an OpenAPI
``url:``, an argv item, an env value), its password is a credential, and the client sends it
as ``Authorization: Basic ...``: so it is hidden like any other secret, raw, percent-decoded
and in every encoded form (docs/secrets.md). So is a query value under a credential's name:
``https://mcp.example.com/?apikey=${MCP_KEY}`` showed the key in every message naming the URL,
since ``MCP_KEY`` is not a secret by its name nor under ``headers``. A userinfo without a password (``https://TOKEN@
host/``, the form some services use for a token) is one too. Values shorter than
``MIN_AUTO_SECRET`` characters are exempt, as for ``${...}`` under ``headers``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

__all__ = ["masked_url", "port_problem", "redact_userinfo", "shown_url", "url_credentials",
           "userinfo"]

# scheme://authority: the authority ends at the first '/', '?', '#' or '\\' (a backslash is a
# slash to WHATWG parsers), and its userinfo is everything up to the last '@' in it
_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#\\\s]*)")

# the same with whatever else it holds (`host: 80` is an authority with a bad port)
_WHOLE_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#\\]*)")


def userinfo(url: str) -> str | None:
    """The userinfo of ``url`` (``user:password``), or None when it has none."""
    match = _AUTHORITY.match(url.strip())
    if match is None or "@" not in match.group(1):
        return None
    return match.group(1).rpartition("@")[0]


def port_problem(url: str) -> str | None:
    """What is wrong with the port of an absolute ``url`` (``port 99999 is out of range``),
    or None when it has none or a valid one (1-65535). Checked at load: the HTTP client would
    fail at every call with an error that names neither the key nor the port."""
    match = _WHOLE_AUTHORITY.match(url.strip())
    if match is None:
        return None
    host = match.group(1).rpartition("@")[2]
    if host.startswith("["):  # [v6]:port
        host = host.partition("]")[2]
    if ":" not in host:
        return None
    port = host.rpartition(":")[2]
    if port == "" or "{" in port:  # `host:` is the default port; a placeholder, refused later
        return None
    if not (port.isascii() and port.isdigit()):
        shown = f" {port!r}" if len(port) <= 8 and port.lstrip("+-").isdigit() else ""
        return f"the port{shown} is not a number from 1 to 65535"
    if not 1 <= int(port) <= 65535:
        return f"port {int(port)} is out of range (1-65535)"
    return None


def shown_url(url: str) -> str:
    """``url`` as a message shows it: without its userinfo (``user:password@``), which is a
    credential even where the config did not name it a secret."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    end = min((i for i in (rest.find(c) for c in "/?#\\") if i >= 0), default=len(rest))
    authority = rest[:end]
    return f"{scheme}://{authority.rpartition('@')[2]}{rest[end:]}" if "@" in authority \
        else url


# a userinfo in running text (a program's message): everything from "scheme://" to the last
# '@' before the host's end that has no '/' between
_TEXT_USERINFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\\\s'\"]*@")


def redact_userinfo(text: str) -> str:
    """``text`` with the userinfo of every ``scheme://user:password@host`` in it cut out."""
    return _TEXT_USERINFO.sub(r"\1", text) if "@" in text else text


# a query parameter whose name says it holds a credential (its value ends at & # or a blank);
# text, compiled by re at its first use: most configs have no URL with a query (~0.5 ms)
_QUERY_CREDENTIAL = (
    r"(?i)[?&;]((?:[A-Za-z0-9]+[_.-])*(?:api[_-]?key|apikey|key|token|secret|password|passwd|"
    r"pwd|pass|auth|authorization|sig|signature|credentials?|private[_-]?key))"
    r"=([^&#;\s'\"]+)")


def masked_url(text: str) -> str:
    """``text`` (a URI someone else sent: a client's ``resources/read``) as a log shows it:
    the userinfo of each URL cut out, and each query value under a credential's name
    ``***`` (``?api_key=***``); toolhost knows neither as a secret, so nothing else hides them."""
    text = redact_userinfo(text)
    if "=" not in text:
        return text
    return re.sub(_QUERY_CREDENTIAL, lambda m: m.group(0)[:len(m.group(0)) - len(m.group(2))]
                  + "***", text)


def url_credentials(data: Any, min_length: int) -> set[str]:
    """The passwords (or lone user names) in the userinfo of every URL in ``data``, and the
    values of its query parameters named as credentials (``?api_key=``, ``&token=``)."""
    found: set[str] = set()
    for text in _strings(data):
        if "://" not in text:
            continue
        if "?" in text:
            for match in re.finditer(_QUERY_CREDENTIAL, text):
                value = match.group(2)
                if "{" in value:  # a template (``{{ key }}``): a call's argument
                    continue
                for form in (value, unquote(value)):
                    if len(form) >= min_length:
                        found.add(form)
        if "@" not in text:
            continue
        for match in _AUTHORITY.finditer(text):
            authority = match.group(1)
            if "@" not in authority:
                continue
            user, colon, password = authority.rpartition("@")[0].partition(":")
            secret = password if colon else user
            for form in (secret, unquote(secret)):
                if len(form) >= min_length:
                    found.add(form)
    return found


def _strings(data: Any) -> Iterator[str]:
    """Every string in ``data`` that holds an ``@`` or a ``?`` (only those can hold a
    userinfo or a query)."""
    stack = [data]
    while stack:  # a loop, not recursion: the config may nest deeply
        node = stack.pop()
        if isinstance(node, str):
            if "@" in node or "?" in node:
                yield node
            continue
        items = node.values() if isinstance(node, dict) else node \
            if isinstance(node, list) else ()
        for item in items:  # a long list of numbers or plain words costs no stack
            if isinstance(item, str):
                if "@" in item or "?" in item:
                    yield item
            elif isinstance(item, (dict, list)):
                stack.append(item)
