"""The gateway: MCP servers toolhost did not write, imported as a server's tools and put
behind the same validation, rules, audit log, redaction and timeouts as toolhost's own.

``servers.NAME.mcp`` names the upstream (a command over stdio, or a Streamable HTTP URL);
``include``/``exclude`` choose its tools and ``tools.<upstream name>`` reshapes one (rename,
description, annotations, fixed arguments, defaults, tighter schemas). The official ``mcp``
client package talks to the upstream; it is imported only when a config has an upstream.
"""

from __future__ import annotations

from toolhost.gateway.spec import RESHAPE_KEYS, UPSTREAM_SERVER_KEYS, Reshape, UpstreamSpec

__all__ = ["RESHAPE_KEYS", "UPSTREAM_SERVER_KEYS", "Reshape", "UpstreamSpec"]
