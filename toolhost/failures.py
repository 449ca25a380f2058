"""How an unexpected failure is reported: one line on stderr, the traceback only on request.

A bug in a handler must never put a traceback on the wire or flood a user's terminal;
``TOOLHOST_DEBUG=1`` in the environment (what ``--debug`` sets) adds the traceback.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from toolhost.excerpt import cut

__all__ = ["debug_enabled", "log_failure"]


def debug_enabled() -> bool:
    """Whether tracebacks were asked for: ``TOOLHOST_DEBUG`` (what ``--debug`` sets) set to a
    true value (anything but empty, ``0``, ``false``, ``no``, ``off``)."""
    value = os.environ.get("TOOLHOST_DEBUG", "").strip().lower()
    return value not in ("", "0", "false", "no", "off")


def log_failure(log: logging.Logger | logging.LoggerAdapter[Any], what: str,
                exc: BaseException, *, kind: str | None = None,
                message: str | None = None) -> None:
    """Log ``what failed: ExcType: message`` (cut), with the traceback only in debug mode.
    ``kind`` and ``message``, when given, are said instead of the exception's class name and
    ``str(exc)`` (a tool's exception, whose message was read where its code runs)."""
    text = cut(str(exc) if message is None else message)
    log.error("%s: %s: %s" if text else "%s: %s%s", what,
              type(exc).__name__ if kind is None else kind, text,
              exc_info=exc if debug_enabled() else None)
