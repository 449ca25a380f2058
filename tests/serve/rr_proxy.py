"""A round-robin HTTP reverse proxy for tests: every request goes to the next upstream.

``python rr_proxy.py UPSTREAM_URL...`` listens on a free loopback port, prints its base URL,
and forwards each request (streaming the response, SSE included) to the upstreams in turn;
``GET /__hits`` answers how many requests each upstream got.
"""

from __future__ import annotations

import itertools
import json
import socket
import sys
from collections.abc import AsyncIterator

import httpx
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

UPSTREAMS = [u.rstrip("/") for u in sys.argv[1:]]
turn = itertools.cycle(range(len(UPSTREAMS)))
hits = [0] * len(UPSTREAMS)
client = httpx.AsyncClient(timeout=None)
HOP = {"host", "content-length", "connection", "transfer-encoding", "keep-alive"}


async def forward(request: Request) -> Response:
    if request.url.path == "/__hits":
        return Response(json.dumps(hits), media_type="application/json")
    index = next(turn)
    hits[index] = hits[index] + 1
    url = UPSTREAMS[index] + request.url.path
    headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP}
    upstream = client.build_request(request.method, url, headers=headers,
                                    content=await request.body())
    answer = await client.send(upstream, stream=True)

    async def body() -> AsyncIterator[bytes]:
        try:
            async for chunk in answer.aiter_raw():
                yield chunk
        finally:
            await answer.aclose()

    out = {k: v for k, v in answer.headers.items() if k.lower() not in HOP}
    return StreamingResponse(body(), status_code=answer.status_code, headers=out)


app = Starlette(routes=[Route("/{path:path}", forward,
                              methods=["GET", "POST", "DELETE", "HEAD"])])

if __name__ == "__main__":
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    print(f"http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
