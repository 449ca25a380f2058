"""The host a URL really goes to, in one canonical form, read the way the CLI's fetch reads it.

``WebFetch`` runs in the Claude CLI, whose URL parser follows the WHATWG URL standard, not
Python's ``urlsplit``. The two disagree on inputs a model can craft:
``https://evil.net\\@example.com/`` is host ``example.com`` to ``urlsplit`` but host
``evil.net`` to a WHATWG parser (``\\`` is ``/`` in http(s) URLs), and
``https://exam%70le.com/`` is ``example.com`` only to the latter. One address also has many
spellings: ``http://2130706433/``, ``http://0x7f.1/`` and ``http://[::ffff:127.0.0.1]/`` all go
to ``127.0.0.1``. So hosts are brought to one canonical form (the WHATWG host parser:
percent-decoding, UTS #46 IDNA, the IPv4 number forms, IPv6 compression) on both sides, the
rule's and the request's, before they are compared. None means "cannot tell for sure"; callers
treat it as matching deny and ask rules and no allow rule.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import unquote

__all__ = ["canonical_host", "host_matches", "url_host"]

_TAB_NEWLINE = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)", re.DOTALL)
_AUTHORITY_END = re.compile(r"[/?#]")
# WHATWG "forbidden domain code points": a host holding one of these is not a host.
_FORBIDDEN = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")
_MAX_URL = 65_536  # longer input is refused rather than scanned (no real URL is this long)
# IPv6 ranges that carry an IPv4 address the connection really reaches.
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


def _ipv4_number(part: str) -> int | None:
    """One part of a WHATWG IPv4 address: decimal, ``0x`` hex or ``0`` octal; None if not."""
    base = 10
    if part[:2] in ("0x", "0X"):
        part, base = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        part, base = part[1:], 8
    if part == "":
        return 0 if base == 16 else None
    digits = {10: "0123456789", 8: "01234567", 16: "0123456789abcdefABCDEF"}[base]
    if len(part) > 64 or any(c not in digits for c in part):
        return None
    return int(part, base)


def _ipv4(host: str) -> str | None:
    """The dotted form of a host that is an IPv4 address in any WHATWG spelling (``127.1``,
    ``0177.0.0.1``, ``0x7f000001``, ``2130706433``); "" when the host ends in a number but is
    no valid address (a failure); None when it is not an IPv4 address at all."""
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    if not (last.isascii() and last.isdigit()) and _ipv4_number(last) is None:
        return None  # does not end in a number: a domain
    if len(parts) > 4 or any(p == "" for p in parts):
        return ""
    numbers = [_ipv4_number(p) for p in parts]
    if any(n is None for n in numbers):
        return ""
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return ""
    address = values[-1]
    for i, n in enumerate(values[:-1]):
        address += n * 256 ** (3 - i)
    return str(ipaddress.IPv4Address(address))


def _ipv6(inner: str) -> str | None:
    try:
        address = ipaddress.IPv6Address(inner)
    except ValueError:
        return None
    if address.scope_id is not None:  # "%zone": the WHATWG parser refuses it
        return None
    embedded = address.ipv4_mapped
    if embedded is None and address in _NAT64:
        embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if embedded is None and int(address) >> 32 == 0 and int(address) > 0xFFFF:
        embedded = ipaddress.IPv4Address(int(address))  # IPv4-compatible ::a.b.c.d
    if embedded is not None:
        return str(embedded)
    return f"[{address.compressed}]"


def _a_label(label: str) -> bool:
    """Whether ``label`` is no ``xn--`` label or one whose Punycode decodes to a name that is
    not ASCII and holds no control character (``xn--a``, ``xn--``, ``xn--abc-`` do not)."""
    if not label.startswith("xn--"):
        return True
    try:
        decoded = label[4:].encode("ascii").decode("punycode")
    except (UnicodeError, ValueError, IndexError):
        return False
    return not decoded.isascii() and all(ord(c) >= 0xA0 for c in decoded if not c.isascii())


def canonical_host(host: str) -> str | None:
    """A host (no scheme, no port) in canonical form: IPv4 dotted decimal, IPv6 compressed in
    brackets (an IPv6 address carrying an IPv4 one, ``::ffff:a.b.c.d``, is that IPv4 address),
    domains lower-case ASCII (IDNA ``xn--``) without a trailing dot. None if it is no host."""
    if len(host) > 1024:
        return None
    if host.startswith("["):
        return _ipv6(host[1:-1]) if host.endswith("]") else None
    try:
        host = unquote(host, errors="strict")
    except UnicodeDecodeError:
        return None
    if host.isascii():
        host = host.lower()
        if "xn--" in host and not all(_a_label(label) for label in host.split(".")):
            return None  # an xn-- label that is no Punycode: the WHATWG parser refuses it
    else:
        try:
            import idna

            host = idna.encode(host, uts46=True, transitional=False).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            return None
    if host in ("", ".") or _FORBIDDEN.search(host):
        return None
    ipv4 = _ipv4(host)
    if ipv4 is not None:
        return ipv4 or None
    return host.rstrip(".") or None


def url_host(url: str) -> str | None:
    """The canonical host (see ``canonical_host``) of an http(s) ``url``, or None."""
    if len(url) > _MAX_URL:
        return None
    text = _TAB_NEWLINE.sub("", url).strip("".join(map(chr, range(0x21))))
    match = _SCHEME.fullmatch(text)
    if match is None or match.group(1).lower() not in ("http", "https"):
        return None
    rest = match.group(2).replace("\\", "/").lstrip("/")  # special schemes: any slashes
    authority = _AUTHORITY_END.split(rest, maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    if host.startswith("["):
        end = host.find("]")
        if end < 0:
            return None
        host, port = host[: end + 1], host[end + 1:]
        if port and not port.startswith(":"):
            return None
        port = port[1:]
    else:
        host, _, port = host.partition(":")
    if port and (not port.isascii() or not port.isdigit() or int(port) > 65535):
        return None
    return canonical_host(host)


def host_matches(pattern: str, host: str) -> bool:
    """Whether canonical ``host`` is ``pattern`` (canonical) or, for ``*.domain``, the domain
    or one of its subdomains at a label boundary."""
    if pattern.startswith("*."):
        return host == pattern[2:] or host.endswith(pattern[1:])
    return host == pattern
