"""Reading an issuer's documents (OIDC discovery, the JWK set): bounded, and said in one line.

A fetch is an HTTP(S) GET that must answer 200 within :data:`FETCH_TIMEOUT` seconds in all
(connect, headers and body, however slowly they drip), with at most :data:`MAX_DOCUMENT`
bytes of JSON. The deadline is kept by closing the fetch's sockets when it passes: a socket
timeout bounds each read only, and a buffered read waits for its whole chunk, so a server
dripping a byte every few seconds held the fetching thread (and its socket) for hours. A
redirect is not followed (the key set's address decides what is trusted: give the final
URL). Every failure is a :class:`FetchError` saying what went wrong, never a
traceback. Blocking: run it off the event loop.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import socket
import threading
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


class _Sockets:
    """The sockets one fetch opened; :meth:`cut` shuts them (at the deadline), which ends
    any read blocked on them at once, TLS ones too (the same descriptor)."""

    def __init__(self) -> None:
        self.open: list[socket.socket] = []
        self.cut_off = threading.Event()
        self._lock = threading.Lock()

    def add(self, sock: socket.socket) -> socket.socket:
        with self._lock:
            self.open.append(sock)
            if self.cut_off.is_set():  # connected just as the deadline passed
                _shut(sock)
        return sock

    def cut(self) -> None:
        with self._lock:
            self.cut_off.set()
            for sock in self.open:
                _shut(sock)


def _shut(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


def _counted(base: type[http.client.HTTPConnection]) -> Any:
    class Counted(base):  # type: ignore[valid-type,misc]
        def __init__(self, *args: Any, sockets: _Sockets, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # what HTTPConnection connects with (HTTPS wraps the socket after)
            self._create_connection = lambda *a, **k: sockets.add(
                socket.create_connection(*a, **k))
    return Counted


_HTTP, _HTTPS = _counted(http.client.HTTPConnection), _counted(http.client.HTTPSConnection)


class _Http(urllib.request.HTTPHandler):
    def __init__(self, sockets: _Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def http_open(self, req: Any) -> Any:
        return self.do_open(functools.partial(_HTTP, sockets=self.sockets), req)


class _Https(urllib.request.HTTPSHandler):
    def __init__(self, sockets: _Sockets) -> None:
        super().__init__()
        self.sockets = sockets

    def https_open(self, req: Any) -> Any:
        return self.do_open(functools.partial(_HTTPS, sockets=self.sockets), req,
                            context=self._context)  # type: ignore[attr-defined]


def fetch_json(url: str, *, timeout: float = FETCH_TIMEOUT,
               limit: int = MAX_DOCUMENT) -> Any:
    """The JSON document at ``url``; raises FetchError."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme not in ("http", "https"):
        raise FetchError(f"{clean(url, 120)} is not an http(s) URL")
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers={"accept": "application/json"})
    sockets = _Sockets()
    opener = urllib.request.build_opener(_NoRedirect, _Http(sockets), _Https(sockets))
    watchdog = threading.Timer(timeout, sockets.cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        return _read(opener, request, timeout, deadline, limit)
    except FetchError:
        if sockets.cut_off.is_set() or time.monotonic() >= deadline:
            raise FetchError(f"did not answer within {timeout:g} s") from None
        raise
    finally:
        watchdog.cancel()
        for sock in sockets.open:
            sock.close()


def _read(opener: urllib.request.OpenerDirector, request: urllib.request.Request,
          timeout: float, deadline: float, limit: int) -> Any:
    try:
        with opener.open(request, timeout=timeout) as answer:
            length = answer.headers.get("content-length")
            if length is not None and length.strip().isdigit() and int(length) > limit:
                raise FetchError(f"answered {int(length)} bytes (at most {limit})")
            body = bytearray()
            while True:
                if time.monotonic() > deadline:
                    raise FetchError(f"did not answer within {timeout:g} s")
                chunk = answer.read1(_CHUNK)  # what has come, not a whole chunk
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
