"""The host a URL really goes to, read the way the CLI's fetch reads it.

``WebFetch`` runs in the Claude CLI, whose URL parser follows the WHATWG URL standard, not
Python's ``urlsplit``. The two disagree on inputs a model can craft:
``https://evil.net\\@example.com/`` is host ``example.com`` to ``urlsplit`` but host
``evil.net`` to a WHATWG parser (``\\`` is ``/`` in http(s) URLs), and
``https://exam%70le.com/`` is ``example.com`` only to the latter. So ``url_host`` applies the
WHATWG rules that matter for the host and returns None when the host cannot be told for sure;
callers treat None as matching deny and ask rules and no allow rule.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

__all__ = ["url_host"]

_TAB_NEWLINE = re.compile(r"[\t\n\r]")
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):(.*)", re.DOTALL)
_AUTHORITY_END = re.compile(r"[/?#]")
_HOST = re.compile(r"[a-z0-9_-]+(\.[a-z0-9_-]+)*|\[[0-9a-f:.]+\]")


def url_host(url: str) -> str | None:
    """The lower-case host of an http(s) ``url`` without a trailing dot, or None."""
    text = _TAB_NEWLINE.sub("", url).strip("".join(map(chr, range(0x21))))
    match = _SCHEME.fullmatch(text)
    if match is None or match.group(1).lower() not in ("http", "https"):
        return None
    rest = match.group(2).replace("\\", "/").lstrip("/")  # special schemes: any slashes
    authority = _AUTHORITY_END.split(rest, maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    if host.startswith("["):
        host = host[: host.find("]") + 1] if "]" in host else ""
    else:
        host = host.partition(":")[0]
    host = unquote(host)
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")  # maps full-width letters, cases
        except UnicodeError:
            return None
    host = host.lower().rstrip(".")
    return host if _HOST.fullmatch(host) else None
