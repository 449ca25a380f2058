"""The mcp package's client for one upstream's spec: a stdio process or a Streamable HTTP
connection, each message capped (``toolhost.gateway.transport``), with the capabilities
toolhost declares upstream."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

from toolhost.gateway.http_caps import capped_http_hooks
from toolhost.gateway.sift import sifted
from toolhost.gateway.spec import UpstreamSpec
from toolhost.gateway.stderr import StderrLog
from toolhost.gateway.transport import Wire, quiet_mcp_logs, stdio_transport

__all__ = ["open_client"]


def open_client(spec: UpstreamSpec, on_message: Any, errlog: StderrLog | None, wire: Wire) -> Any:
    """The mcp package's client for ``spec``, telling ``on_message`` what the server says
    unasked, over a transport that caps each message (``toolhost.gateway.transport``;
    imported here: configs without upstreams never load the package)."""
    from mcp.client.client import Client

    quiet_mcp_logs()
    if spec.command:
        from mcp.client.stdio import get_default_environment

        env = {**get_default_environment(),
               **{k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG",
                                                              "LC_ALL", "TMPDIR", "PYTHONPATH",
                                                              "SYSTEMROOT")},
               **dict(spec.env)}
        assert errlog is not None
        return Client(sifted(stdio_transport(list(spec.command), env, spec.cwd, errlog.file,
                                             wire), wire.server),
                      message_handler=on_message, **_declared(spec))
    import httpx2

    assert spec.url is not None
    # nothing compressed: inflating is where a small answer becomes a huge one; no proxy
    # variables, .netrc or redirects (as the http backend): requests go where the config says
    from toolhost.gateway.http_broke import WatchedTransport, origin_of

    wire.origin = origin_of(spec.url)
    http = httpx2.AsyncClient(headers={"Accept-Encoding": "identity", **dict(spec.headers)},
                              timeout=spec.timeout or 60.0, trust_env=False,
                              follow_redirects=False, event_hooks=capped_http_hooks(wire),
                              transport=WatchedTransport(wire))
    return Client(sifted(_http_transport(spec.url, http, wire), wire.server),
                  message_handler=on_message, **_declared(spec))


def _declared(spec: UpstreamSpec) -> dict[str, Any]:
    """The capabilities declared upstream: elicitation only when the config passes it on
    (the mcp client declares it when given a callback; ``refuse_asks`` answers before any
    callback is reached)."""
    if not spec.elicitation:
        return {}

    async def unreached(ctx: Any, params: Any) -> Any:  # pragma: no cover - see refuse_asks
        raise AssertionError("elicitation is answered by toolhost.gateway.asks")

    return {"elicitation_callback": unreached}


@contextlib.asynccontextmanager
async def _http_transport(url: str, http: Any, wire: Wire) -> AsyncIterator[Any]:
    """The mcp client's Streamable HTTP transport over ``http``, which is closed after it:
    the transport leaves a client it was given open (each connection made again used to
    leave its sockets behind, open until collected)."""
    from mcp.client.streamable_http import streamable_http_client

    async with http, streamable_http_client(url, http_client=http,
                                            max_sse_event_size=wire.limit) as streams:
        yield streams
