"""A value inside a URL the config wrote, where it would move the URL's host or multiply it.

``[curl, "https://{{ sub }}.example.com/x"]`` means a host under example.com; with ``sub:
"evil.test/"`` the URL is ``https://evil.test/.example.com/x`` and with ``"x@evil.test#"``
the host is ``evil.test`` (what came before ``@`` is userinfo). A value that starts in the
authority the config began (after ``scheme://``, before any ``/``, ``?`` or ``#`` of its
own) may not hold those characters, a backslash (a ``/`` to WHATWG parsers) or blanks.
Programs read URLs from any argument, so this holds for every command.

curl also expands ``[1-100000]`` and ``{a,b}`` in every URL it is given: a value holding
them in a URL the config began made one call fetch a hundred thousand URLs; a value may not
add them there unless the argv turns globbing off (``-g``/``--globoff``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

__all__ = ["url_value_problem"]

_IN_AUTHORITY = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^/?#\\]*\Z")  # ends the prefix
_MOVES_HOST = re.compile(r"[/?#@\\\s]")
_GLOB = re.compile(r"[\[\]{}]")
_EXTENDS_HOST = re.compile("[.:%\u3002\uff0e\uff61\u2024\ufe52]")
_NOT_DIGIT = re.compile(r"[^0-9]")


def url_value_problem(out: Sequence[str], valued: Sequence[tuple[int, int]],
                      tails: Mapping[int, int]) -> str | None:
    """Why a value in ``out`` would move a URL's host or make curl glob, or None.
    ``valued``: (index, literal length before the value); ``tails``: index -> literal
    length after it."""
    curl_glob = None
    for index, before in valued:
        text = out[index]
        value = text[before:len(text) - tails.get(index, 0)]
        if "://" not in text[:before]:
            continue  # no URL the config began (a whole-URL param chooses the host anyway)
        authority = _IN_AUTHORITY.search(text[:before])
        if authority:  # also `--url=https://{{ sub }}.x.com`
            bad = _MOVES_HOST.search(value) or _ends_host(authority.group(), value,
                                                          text[len(text) - tails.get(index, 0):])
            if bad is not None:
                return (f"the value puts {bad.group()!r} in the host part of the URL "
                        f"{_cut(text)!r}, which would move the host it names (write the whole "
                        "host in the config, or take the host as its own param)")
        if _GLOB.search(value):
            if curl_glob is None:
                curl_glob = _curl_globs(out)
            if curl_glob:
                return (f"the value puts '[', ']', '{{' or '}}' in {_cut(text)!r}, which curl "
                        "expands into many URLs (pass -g / --globoff in the argv to send "
                        "them as they are)")
    return None


def _ends_host(start: str, value: str, tail: str) -> re.Match[str] | None:
    """A value that ends the host the config began (``https://api.example.com{{ p }}``
    with ``.evil.test``, ``https://api-{{ r }}/x`` with ``x.evil.test``) chooses the domain:
    it may not hold a dot (nor a Unicode one, which IDNA reads as a dot), ``:`` or ``%``;
    after a literal ``host:`` it is the port, digits only. With nothing of
    the host written before it (``https://{{ host }}/``) the param is the host by design."""
    if tail[:1] not in ("", "/", "?", "#"):
        return None  # the config's own text ends the host (`{{ sub }}.example.com`)
    host = start.partition("://")[2].rpartition("@")[2]
    if not host:
        return None
    if host.endswith(":") and not host.startswith("["):
        return _NOT_DIGIT.search(value)
    return _EXTENDS_HOST.search(value)


def _curl_globs(out: Sequence[str]) -> bool:
    """Whether curl runs here with its URL globbing on."""
    names = [w.replace("\\", "/").rsplit("/", 1)[-1].lower() for w in out]
    if not any(n in ("curl", "curl.exe") for n in names):
        return False
    return not any(w in ("-g", "--globoff") or (w.startswith("-") and not w.startswith("--")
                                                 and "g" in w[1:] and w[1:].isalpha())
                   for w in out)


def _cut(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."
