"""The request target's forms (RFC 9112 section 3.2): an absolute-form target served by its
path, its authority taking the place of ``Host``; a target in neither origin- nor
absolute-form refused (400) rather than served once decoded."""

from __future__ import annotations

import json
from typing import Any

from toolhost.excerpt import cut

__all__ = ["origin_form"]


def origin_form(app: Any) -> Any:
    """``app`` serving an absolute-form request target (``POST http://host:port/mcp``, what a
    client speaking through a proxy sends) as RFC 9112 section 3.2.2 asks: by its path, its
    authority taking the place of the ``Host`` header (so the Host check judges that). One
    with user info or without a host is left as it came (404)."""
    from urllib.parse import unquote, urlsplit

    async def serve(scope: Any, receive: Any, send: Any) -> None:
        raw = scope.get("raw_path", b"") if scope["type"] == "http" else b""
        if raw and not raw.startswith(b"/") and raw != b"*" \
                and not raw[:8].lower().startswith((b"http://", b"https://")):
            # neither origin- nor absolute-form: "%2Fmcp" was served as /mcp once decoded,
            # a path that a proxy matching "/mcp" (or "/metrics") by its text lets through
            await send({"type": "http.response.start", "status": 400, "headers": [
                (b"content-type", b"application/json"), (b"connection", b"close")]})
            await send({"type": "http.response.body", "body": json.dumps(
                {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": (
                    f"Bad Request: the request target {cut(raw.decode('latin-1'), 60)!r} "
                    "does not start with '/'")}}).encode()})
            return
        if raw[:8].lower().startswith((b"http://", b"https://")):
            try:
                parts = urlsplit(raw.decode("latin-1"))
                usable = bool(parts.hostname) and "@" not in parts.netloc
            except ValueError:
                usable = False
            if usable:
                path = parts.path or "/"
                scope = {**scope, "path": unquote(path), "raw_path": path.encode("latin-1"),
                         "headers": [(k, v) for k, v in scope["headers"] if k != b"host"]
                         + [(b"host", parts.netloc.encode("latin-1"))]}
        await app(scope, receive, send)

    return serve
