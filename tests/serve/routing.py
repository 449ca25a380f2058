"""The SEP-2243 routing headers a 2026-07-28 client sends with a request (``Mcp-Method``,
and ``Mcp-Name`` on the methods that name a tool, prompt or resource), for tests that post
by hand what an SDK client would."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from toolhost.serve.route_headers import NAME_BEARING


def routing(message: Mapping[str, Any]) -> dict[str, str]:
    """The headers an SDK client puts on ``message`` (a name that is not plain printable
    ASCII travels ``=?base64?...?=``-wrapped)."""
    method = message.get("method")
    headers = {"mcp-method": str(method)}
    key = NAME_BEARING.get(str(method))
    params = message.get("params")
    name = params.get(key) if key is not None and isinstance(params, Mapping) else None
    if isinstance(name, str):
        plain = name.isascii() and name.isprintable() and name == name.strip()
        headers["mcp-name"] = name if plain else (
            "=?base64?" + base64.b64encode(name.encode()).decode() + "?=")
    return headers
