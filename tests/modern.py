"""The ``params._meta`` of a hand-written 2026-07-28 request: its version and the client
capabilities that revision requires on every request (none declared here)."""

from __future__ import annotations

from typing import Any

MODERN_VERSION = "2026-07-28"
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
# the same, as the bytes of a hand-framed body
MODERN_META_JSON = (b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                    b'"io.modelcontextprotocol/clientCapabilities":{}}')


def modern_meta(**capabilities: Any) -> dict[str, Any]:
    """A fresh 2026-07-28 ``_meta``; keyword arguments are declared capabilities
    (``modern_meta(elicitation={})``)."""
    return {VERSION_KEY: MODERN_VERSION, CAPABILITIES_KEY: dict(capabilities)}


MODERN_META: dict[str, Any] = modern_meta()
