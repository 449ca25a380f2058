"""``toolhost`` whose streams fall behind fast: queues of ``SMALL_QUEUE`` notifications (not
1,064 for a listen stream) and connections with a small kernel send buffer, so a client that
stops reading is dropped after a few seconds of notifications instead of megabytes."""

from __future__ import annotations

import os
import socket
import sys
from typing import Any

from toolhost.cli import main
from toolhost.serve import http as serve_http
from toolhost.serve import http_protocol, http_uvicorn, served

if __name__ == "__main__":
    small = int(os.environ["SMALL_QUEUE"])
    served.LISTEN_QUEUE = small
    serve_http.GET_QUEUE = small
    made = http_protocol.header_deadline_protocol

    def protocol(*args: Any) -> Any:
        base: Any = made(*args)

        class SmallBuffers(base):  # type: ignore[misc,valid-type]
            def connection_made(self, transport: Any) -> None:
                sock = transport.get_extra_info("socket")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
                super().connection_made(transport)

        return SmallBuffers

    http_uvicorn.header_deadline_protocol = protocol  # type: ignore[assignment]
    sys.exit(main(sys.argv[1:]))
