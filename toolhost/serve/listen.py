"""Bind the HTTP transport's listening sockets before anything is announced.

uvicorn binds inside its own startup and answers a failure with ``sys.exit`` from inside a
task group, which reaches the user as an exception group. Binding here first turns a port in
use, an address the machine does not have or a name that does not resolve into one
``ToolhostError`` (``cannot listen on HOST:PORT: reason``), before "serving ..." is printed.
"""

from __future__ import annotations

import contextlib
import socket

from toolhost.errors import ToolhostError
from toolhost.excerpt import cut

__all__ = ["bind_sockets"]


def bind_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address ``host`` resolves to (as asyncio's ``create_server``
    would bind them), not yet listening; ``ToolhostError`` when any cannot be bound."""
    shown = cut(host, 80)  # a hostile --host may be kilobytes long
    where = f"[{shown}]:{port}" if ":" in host else f"{shown}:{port}"
    try:
        infos = socket.getaddrinfo(host or None, port, socket.AF_UNSPEC, socket.SOCK_STREAM,
                                   0, socket.AI_PASSIVE)
    except (OSError, UnicodeError) as exc:  # gaierror; an over-long or invalid IDNA label
        raise ToolhostError(f"cannot listen on {where}: {_reason(exc)}") from None
    bound: list[socket.socket] = []
    seen: set[object] = set()
    try:
        for family, kind, proto, _name, address in infos:
            if (family, address) in seen:
                continue
            seen.add((family, address))
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                # as asyncio does: an IPv6 socket must not also claim the IPv4 port
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.set_inheritable(True)
    except OSError as exc:
        for sock in bound:
            with contextlib.suppress(OSError):
                sock.close()
        raise ToolhostError(f"cannot listen on {where}: {_reason(exc)}") from None
    return bound


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__
