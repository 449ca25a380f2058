"""Reading an issuer's documents (OIDC discovery, the JWK set): bounded, and said in one line.

A fetch is an HTTP(S) GET that must answer 200 within :data:`FETCH_TIMEOUT` seconds in all
(connect, headers and body, however slowly the body drips), with at most :data:`MAX_DOCUMENT`
bytes of JSON. A redirect is not followed (the key set's address decides what is trusted:
give the final URL). Every failure is a :class:`FetchError` saying what went wrong, never a
traceback. Blocking: run it off the event loop.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from toolhost.excerpt import cut

__all__ = ["FETCH_TIMEOUT", "MAX_DOCUMENT", "FetchError", "clean", "fetch_json"]

FETCH_TIMEOUT = 5.0
MAX_DOCUMENT = 1024 * 1024
_CHUNK = 64 * 1024


class FetchError(Exception):
    """Why an issuer's document could not be read (one line); ``status``: the HTTP status
    the server answered with, when it answered one (a 404 says the document is not there,
    not that the server is down)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def clean(text: str, limit: int = 200) -> str:
    """``text`` as one printable line (a token's or a server's words never shape a log line)."""
    return cut("".join(c if c.isprintable() else "?" for c in text), limit)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req: Any, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> None:
        fp.close()
        raise FetchError(f"answered a redirect ({code}) to {clean(newurl, 120)}: give the "
                         "final URL")


_OPENER = urllib.request.build_opener(_NoRedirect)


def fetch_json(url: str, *, timeout: float = FETCH_TIMEOUT,
               limit: int = MAX_DOCUMENT) -> Any:
    """The JSON document at ``url``; raises FetchError."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise FetchError(f"{clean(url, 120)} is not an http(s) URL")
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers={"accept": "application/json"})
    try:
        with _OPENER.open(request, timeout=timeout) as answer:
            length = answer.headers.get("content-length")
            if length is not None and length.strip().isdigit() and int(length) > limit:
                raise FetchError(f"answered {int(length)} bytes (at most {limit})")
            body = bytearray()
            while True:
                if time.monotonic() > deadline:
                    raise FetchError(f"did not answer within {timeout:g} s")
                chunk = answer.read(_CHUNK)
                if not chunk:
                    break
                body += chunk
                if len(body) > limit:
                    raise FetchError(f"answered more than {limit} bytes")
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        exc.close()
        raise FetchError(f"answered HTTP {exc.code}", exc.code) from None
    except urllib.error.URLError as exc:
        raise FetchError(f"cannot be reached ({clean(str(exc.reason), 120)})") from None
    except (OSError, ValueError, http.client.HTTPException) as exc:  # timeouts, resets, ...
        raise FetchError(f"cannot be read ({clean(str(exc) or type(exc).__name__, 120)})") \
            from None
    try:
        return json.loads(bytes(body))
    except (ValueError, RecursionError):
        start = clean(bytes(body[:40]).decode("utf-8", "replace"), 40)
        raise FetchError(f"is not JSON (it starts {start!r})") from None
