"""The request URL of an imported operation: its path joined onto ``base_url``, never its host.

Only the keys of ``paths`` that are paths (``/pets/{petId}``) are operations: ``x-...`` keys
are specification extensions (any content, never an operation), and any other key is left out
with a located warning. The literal text of a path is percent-encoded and appended to the
*path* of the parsed ``base_url``; the scheme, host, port and userinfo of the result are then
compared with ``base_url``'s, by ``urllib`` and by the HTTP client's own parser, and a path
that would change them is a located load error (``x-y@evil.example/steal`` glued onto
``http://api.example`` would send the request, and every configured credential, to
``evil.example``).
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote, urlsplit, urlunsplit

import httpx

__all__ = ["PATH_SAFE", "encode_piece", "is_extension", "join_path", "path_key_problem"]

# what a path's literal text keeps as it is; everything else (a space, '\\', '"', non-ASCII,
# a control character) is percent-encoded
PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_ENCODED_SLASH = re.compile(r"%(2f|5c)", re.I)


def is_extension(key: object) -> bool:
    """A specification extension (``x-...``): any content, never an operation."""
    return isinstance(key, str) and key.startswith("x-")


def path_key_problem(key: str) -> str | None:
    """Why a key of ``paths`` is not a path an operation can have, or None."""
    if not key.startswith("/"):
        return "its path does not start with '/' (a path is relative to the server URL)"
    if key.startswith("//"):
        return "its path starts with '//' (a URL without a scheme names another host)"
    segments = unquote(key).replace("\\", "/").split("/")
    if any(segment in (".", "..") for segment in segments):
        return "its path has a '.' or '..' segment (it would leave the server URL's path)"
    if _ENCODED_SLASH.search(key):
        return "its path has an encoded '/' or '\\' (%2F, %5C)"
    if any(c in "\\?#" or ord(c) < 32 or ord(c) == 127 for c in unquote(key)):
        return "its path has a '\\', '?', '#' or control character, plain or encoded"
    return None


def join_path(base_url: str, path: str) -> str:
    """``path`` (already encoded, starting with '/') appended to the path of ``base_url``.

    Raises ``ValueError`` when the result's scheme, host, port or userinfo is not exactly
    ``base_url``'s, or ``base_url`` has a query or fragment (joining would drop it)."""
    base = urlsplit(base_url)
    if base.query or base.fragment or "?" in base_url or "#" in base_url:
        raise ValueError("the base URL has a query or fragment, which the operation's path "
                         "would drop")
    url = urlunsplit((base.scheme, base.netloc, base.path.rstrip("/") + path, "", ""))
    joined = urlsplit(url)
    if (joined.scheme, joined.netloc) != (base.scheme, base.netloc) or \
            not _same_authority(base_url, url):
        raise ValueError(f"its path {path!r} would change the host of the request "
                         f"(requests go only to the server's base URL)")
    return url


def _same_authority(base_url: str, url: str) -> bool:
    """Whether the HTTP client sends ``url`` to the same scheme, host, port and userinfo."""
    try:
        a, b = httpx.URL(base_url), httpx.URL(url)
    except (httpx.InvalidURL, ValueError, TypeError):
        return False
    return (a.scheme, a.host, a.port, a.userinfo) == (b.scheme, b.host, b.port, b.userinfo)


def encode_piece(piece: str) -> str:
    """Literal path text, percent-encoded (never a template: ``{`` and ``}`` are encoded)."""
    return quote(piece, safe=PATH_SAFE)
