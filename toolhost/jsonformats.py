"""The ``format`` checkers jsonschema leaves to optional packages, written here (a low-level
module: ``toolhost.regex`` builds its validator class with them and
``toolhost.compile.formats`` warns about the formats they do not know, so neither imports the
other).

jsonschema checks ``hostname`` only with ``fqdn``, ``uri``/``iri`` with ``rfc3987``,
``uri-template`` with ``uri-template``, ``json-pointer`` with ``jsonpointer``, ``duration`` with
``isoduration``; without them it lets any string pass, so a schema that says ``format:
hostname`` advertised a check that did not happen. These are small grammars (RFC 1123, RFC
3986/3987, RFC 6570, RFC 6901, RFC 3339 appendix A), so toolhost checks them itself rather than
pull in five packages, and uses its own even where such a package is installed (with
``date-time`` and ``time``, whose ``rfc3339-validator`` refuses leap seconds), so a format
means the same on every machine; the JSON Schema test suite's cases for them all agree.
``toolhost.compile.fastcheck`` asks the same checker, so its quick "valid" agrees.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

__all__ = ["CHECKERS"]

# The patterns are kept as text and compiled by ``re.match`` at a format's first check (re's
# own cache keeps them): compiled at import, the dozen took ~1-2 ms of every ``validate`` and
# ``serve``, which import this module for the format names and most often check no value.
_LABEL = r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)\Z"
_UNRESERVED_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
# What may appear in each part of a URI (RFC 3986 section 3); IRIs add ucschar (RFC 3987).
_UCS = "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef\U00010000-\U000efffd"
_SCHEME = r"[A-Za-z][A-Za-z0-9+.\-]*\Z"


_PRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"  # iprivate: queries only
# The characters each part adds to the unreserved and sub-delims (IRI, extra).
_EXTRA = {"path": (":@/", ":@/"), "query": (":@/?", ":@/?" + _PRIVATE), "userinfo": (":", ":"),
          "fragment": (":@/?", ":@/?"), "regname": ("", "")}


@functools.cache
def _part(part: str, iri: bool) -> re.Pattern[str]:
    """The pattern of one part of a URI or IRI, compiled at its first use: a character class
    of every ucschar takes some milliseconds to compile, and ``validate`` and ``serve`` import
    this module for a config that may never check a ``uri`` or ``iri``."""
    chars = _UNRESERVED_SUB + _EXTRA[part][iri] + (_UCS if iri else "")
    return re.compile(rf"(?:[{chars}]++|{_PCT})*+\Z")  # possessive: no backtracking stack
_IP_FUTURE = r"[vV][0-9A-Fa-f]+\.[" + _UNRESERVED_SUB + r":]+\Z"


def _ip_literal(text: str) -> bool:
    """What may stand between ``[`` and ``]``: an IPv6 address, or an IPvFuture."""
    if re.match(_IP_FUTURE, text):
        return True
    import ipaddress

    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return "%" not in text  # a zone id needs %25 (RFC 6874), which IPv6Address does not read
_PORT = r"[0-9]*\Z"
_SPLIT = r"(?:([^:/?#]+):)?(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?\Z"  # re.S


def is_hostname(text: str) -> bool:
    """RFC 1123 host name: dot-separated labels of letters, digits and inner hyphens, each at
    most 63 characters, at most 253 in all; an ``xn--`` label must be valid Punycode of an
    IDNA 2008 label, and no other label has ``--`` in its 3rd and 4th places (RFC 5891)."""
    if not text or len(text) > 253:
        return False
    for label in text.split("."):
        if not re.match(_LABEL, label):
            return False
        if label[2:4] == "--" and (label[:2].lower() != "xn" or not _a_label(label)):
            return False
    return True


def _a_label(label: str) -> bool:
    import idna  # a dependency (WebFetch host rules); loaded only for an xn-- label

    try:
        idna.decode(label.lower())
    except (idna.IDNAError, UnicodeError, ValueError):
        return False
    return True


def _reference(text: str, *, iri: bool, absolute: bool) -> bool:
    match = re.match(_SPLIT, text, re.S)
    if match is None:
        return False
    scheme, authority, path, query, fragment = match.groups()
    if scheme is not None and not re.match(_SCHEME, scheme):
        return False
    if absolute and scheme is None:
        return False
    if scheme is None and ":" in path.split("/", 1)[0]:
        return False  # a relative path's first segment has no colon (RFC 3986 4.2)
    if authority is not None:
        userinfo, _, hostport = authority.rpartition("@")
        if userinfo and not _part("userinfo", iri).match(userinfo):
            return False
        if hostport.startswith("["):
            host, closed, rest = hostport.partition("]")
            if not closed or not _ip_literal(host[1:]) or (rest and not (
                    rest.startswith(":") and re.match(_PORT, rest[1:]))):
                return False
        else:
            host, _, port = hostport.partition(":")
            if not _part("regname", iri).match(host) or not re.match(_PORT, port):
                return False
    return (bool(_part("path", iri).match(path))
            and (query is None or bool(_part("query", iri).match(query)))
            and (fragment is None or bool(_part("fragment", iri).match(fragment))))


_VARCHAR = r"(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})"
_VARSPEC = rf"{_VARCHAR}(?:\.?{_VARCHAR})*+(?::[1-9][0-9]{{0,3}}|\*)?"
_EXPRESSION = rf"\{{[+#./;?&=,!@|]?{_VARSPEC}(?:,{_VARSPEC})*+\}}"
_LITERALS = r"(?:[^\x00-\x20\"%<>\\^`{|}\x7f]++|%[0-9A-Fa-f]{2})*+\Z"


def is_uri_template(text: str) -> bool:
    """RFC 6570 URI Template: literals, and ``{expressions}`` of an optional operator and
    comma-separated variables, each with an optional ``:length`` or ``*``."""
    literal = re.sub(_EXPRESSION, "", text)
    return "{" not in literal and "}" not in literal and bool(re.match(_LITERALS, literal))


_POINTER = r"(?:/(?:[^~/]++|~[01])*+)*+\Z"
_RELATIVE_POINTER = r"(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]++|~[01])*+)*+)\Z"
_TIME = r"T(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
_DURATION = (
    rf"P(?:[0-9]+W|(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)(?:{_TIME})?"
    rf"|{_TIME})\Z")


_DATE_TIME = (r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?)"
              r"([Zz]|[+-][0-9]{2}:[0-9]{2})\Z")
_TIME_ONLY = r"([0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]+)?)([Zz]|[+-][0-9]{2}:[0-9]{2})\Z"


def _valid_time(clock: str, offset: str) -> bool:
    import datetime as dt

    hour, minute, second = int(clock[:2]), int(clock[3:5]), int(clock[6:8])
    shift = 0  # the offset in minutes
    if offset not in ("Z", "z"):
        if int(offset[1:3]) > 23 or int(offset[4:6]) > 59:
            return False
        shift = (int(offset[1:3]) * 60 + int(offset[4:6])) * (1 if offset[0] == "+" else -1)
    if second == 60:  # a leap second: only in the last minute of a UTC day
        return hour < 24 and minute < 60 and (hour * 60 + minute - shift) % 1440 == 1439
    try:
        dt.time(hour, minute, second)
    except ValueError:
        return False
    return True


def is_date_time(text: str) -> bool:
    """RFC 3339 date-time: ``2024-01-31T10:00:00Z``, with an offset, optional fraction."""
    import datetime as dt

    match = re.match(_DATE_TIME, text)
    if match is None:
        return False
    try:
        dt.date.fromisoformat(match[1])
    except ValueError:
        return False
    return _valid_time(match[2], match[3])


def is_time(text: str) -> bool:
    """RFC 3339 full-time: ``10:00:00Z`` or ``10:00:00.5+02:00`` (the offset is required)."""
    match = re.match(_TIME_ONLY, text)
    return match is not None and _valid_time(match[1], match[2])


def _strings(check: Callable[[str], bool]) -> Callable[[object], bool]:
    # a format applies to strings only: any other type conforms (JSON Schema)
    return lambda instance: not isinstance(instance, str) or check(instance)


CHECKERS: dict[str, Callable[[object], bool]] = {
    "hostname": _strings(is_hostname),
    "uri": _strings(lambda t: _reference(t, iri=False, absolute=True)),
    "uri-reference": _strings(lambda t: _reference(t, iri=False, absolute=False)),
    "iri": _strings(lambda t: _reference(t, iri=True, absolute=True)),
    "iri-reference": _strings(lambda t: _reference(t, iri=True, absolute=False)),
    "uri-template": _strings(is_uri_template),
    "json-pointer": _strings(lambda t: bool(re.match(_POINTER, t))),
    "relative-json-pointer": _strings(lambda t: bool(re.match(_RELATIVE_POINTER, t))),
    "duration": _strings(lambda t: bool(re.match(_DURATION, t))),
    "date-time": _strings(is_date_time),  # jsonschema's needs rfc3339-validator
    "time": _strings(is_time),
}
