"""The Claude CLI control protocol: NDJSON framing and the ``ControlSession``."""

from toolhost.protocol.framing import DEFAULT_MAX_LINE_BYTES, LineReader, LineWriter
from toolhost.protocol.handlers import MessageFn, PermissionFn
from toolhost.protocol.session import ControlSession

__all__ = ["DEFAULT_MAX_LINE_BYTES", "ControlSession", "LineReader", "LineWriter", "MessageFn",
           "PermissionFn"]
