"""A URL's host read exactly as the HTTP client (httpx) and git will read it, or refused.

Parsers disagree on odd authorities: ``http://a.example @b.example/`` is a request to
``b.example`` for httpx (``a.example `` is its user name), a space-terminated host for a
regular expression that stops at whitespace. Whatever a config or a document names as a server
is therefore checked here at load, and anything that could be read two ways is a located error
instead of a request to another host with the server's headers: a space, tab or control
character anywhere, a backslash before the query, a second ``@``, a non-ASCII character in the
authority (``＠``, ``﹫``, ``：``, ``／``, ``。`` and every IDNA mapping: write the ``xn--`` form),
a ``%`` escape or any character but letters, digits and ``-._~`` in the host, an empty host,
an invalid IPv4 or IPv6 literal, a port that is not 1-65535. With those refused, the host
``authority`` returns is the one httpx connects to (a property the tests check).
"""

from __future__ import annotations

import ipaddress  # already loaded by urllib.parse: no cost at start
import re
from dataclasses import dataclass
from typing import NoReturn

__all__ = ["Authority", "authority", "url_problem"]

_URL = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://([^/?#]*)(.*)\Z", re.S)  # httpx's split
_HOST = re.compile(r"[A-Za-z0-9._~-]+\Z")  # a reg-name with no sub-delims and no escapes
# httpx reads such a host as an IPv4 address, and refuses it unless it is one
_IPV4_LIKE = re.compile(r"[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+\Z")
# possessive: a frame per character was 124 bytes (a 16 MiB userinfo, 2 GB)
_USERINFO = re.compile(r"(?:[A-Za-z0-9._~!$&'()*+,;=:-]++|%[0-9A-Fa-f]{2})*+\Z")


@dataclass(frozen=True)
class Authority:
    """Where an absolute URL sends its requests, as the client reads it."""

    userinfo: str | None  # "user:password" as written, None when there is no '@'
    host: str  # a name in lower case; an IPv6 address as written, without its brackets
    port: int | None  # None: the scheme's default


def url_problem(url: str, *, userinfo: bool = True) -> str | None:
    """What makes ``url`` ambiguous or wrong to send to (a one-line reason without the
    userinfo), or None when it is fine or not an absolute ``scheme://`` URL. ``userinfo``:
    whether a ``user:password@`` part is allowed (a document's server URL may not have one)."""
    try:
        found = authority(url)
    except ValueError as exc:
        return str(exc)
    if found is not None and found.userinfo is not None and not userinfo:
        return ("the URL has a user name or password before the host ('user@host'): "
                "refused, so that requests go only to a host the config can see")
    return None


def authority(url: str) -> Authority | None:
    """The host and port ``url`` sends to; None for a URL without ``scheme://``. Raises
    ``ValueError`` (with a one-line reason that never quotes the userinfo) when the URL could
    be read two ways or the client would refuse it."""
    for index, char in enumerate(url):
        if char.isspace() or not char.isprintable():
            _refuse(f"the URL has {_name(char)} at position {index + 1}: a client "
                           "reads it differently from what it looks like")
    match = _URL.match(url)
    if match is None:
        return None
    auth = match.group(2)
    if "\\" in url.partition("?")[0].partition("#")[0]:
        _refuse("the URL has a backslash, which some clients read as '/' and others "
                       "do not")
    odd = next((c for c in auth if not c.isascii()), None)
    if odd is not None:
        _refuse(f"the URL's host part has the non-ASCII character {_name(odd)}: "
                       "write the host in ASCII (an international name in its xn-- form)")
    if auth.count("@") > 1:
        _refuse("the URL has more than one '@' before its path: which one ends the "
                       "user name is read differently by different clients")
    info, at, hostport = auth.rpartition("@")
    if at and not _USERINFO.match(info):
        bad = next((c for c in info if c != "%" and not _USERINFO.match(c)), None)
        _refuse(f"the URL's user name or password has {bad!r}: percent-encode it" if bad
                else "the URL's user name or password has a '%' that starts no %XX escape")
    host, port = _split_port(hostport)
    return Authority(info if at else None, _host(host), _port(port))


def _split_port(hostport: str) -> tuple[str, str | None]:
    if hostport.startswith("["):
        host, close, after = hostport.partition("]")
        if not close:
            _refuse("the URL's IPv6 address has no closing ']'")
        if after and not after.startswith(":"):
            _refuse("the URL has text after its IPv6 address ']' that is not ':port'")
        return host + close, after[1:] if after else None
    host, colon, port = hostport.partition(":")
    return host, port if colon else None


def _host(host: str) -> str:
    if not host:
        _refuse("the URL has no host")
    if host.startswith("["):
        try:
            if "%" in host:  # a zone ('%eth0'): not for a URL in a shared config
                raise ValueError(host)
            ipaddress.IPv6Address(host[1:-1])
            return host[1:-1]  # as httpx gives it: validated, not rewritten
        except ValueError:
            _refuse(f"{host[:60]!r} is not an IPv6 address")
    if not _HOST.match(host):
        bad = next(c for c in host if not _HOST.match(c))
        what = "a '%' escape" if bad == "%" else repr(bad)
        _refuse(f"the URL's host has {what}: a host is letters, digits, '-', '.', '_' and "
                "'~' (or an [IPv6] address)")
    if _IPV4_LIKE.match(host):
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            _refuse(f"{host!r} is not an IPv4 address")
    if "xn--" in host.lower():
        _punycode(host)
    return host.lower()


def _punycode(host: str) -> None:
    """An ``xn--`` label must be one httpx can decode (it does, to show the host)."""
    import idna  # httpx's own IDNA codec: only for a host written in its xn-- form

    try:
        idna.decode(host.lower())
    except (idna.IDNAError, UnicodeError, ValueError):
        _refuse(f"{host[:60]!r} has an 'xn--' label that is not a valid international name")


def _port(port: str | None) -> int | None:
    if not port:  # `host:` is the scheme's default port, as for httpx
        return None
    if not (port.isascii() and port.isdigit()):
        shown = f" {port!r}" if len(port) <= 8 and port.lstrip("+-").isdigit() else ""
        _refuse(f"the port{shown} is not a number from 1 to 65535")
    if not 1 <= int(port) <= 65535:
        _refuse(f"port {int(port)} is out of range (1-65535)")
    return int(port)


def _name(char: str) -> str:
    return f"{char!r} (U+{ord(char):04X})"


def _refuse(reason: str) -> NoReturn:
    raise ValueError(reason)
