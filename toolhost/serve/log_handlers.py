"""Secrets hidden from every log handler, not only from stderr.

toolhost's own handler writes to stderr, which is scrubbed as a stream. Any other handler on
a logger (OpenTelemetry's log export, ``OTEL_LOGS_EXPORTER=otlp`` with
``OTEL_PYTHON_LOGGING_AUTO_INSTRUMENTATION_ENABLED=true``, which ships each record's message,
``extra`` fields and exception to a collector; a file or syslog handler a library added) would
get the record as a tool or library logged it: ``log.warning("key %s", token)`` in clear.
``hide_secrets_in_handlers`` makes each such handler emit a copy of the record with every
text redacted (the message with its arguments, ``extra`` fields, the exception's message and
traceback, ``stack_info``); the original record, and toolhost's own handler, are untouched.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import Any

__all__ = ["hide_secrets_in_handlers", "shown_record"]

_MARK = "_toolhost_hides_secrets"


class _Shown(Exception):
    """Stands for a logged exception whose message is redacted (its type name is kept)."""


def shown_record(record: logging.LogRecord) -> logging.LogRecord:
    """A copy of ``record`` with every text in it redacted like a line on stderr."""
    from toolhost.redaction import scrub

    copy = logging.makeLogRecord(dict(vars(record)))
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: the handler would only report it
        message = f"{record.msg!s} {record.args!r}"
    copy.msg, copy.args = scrub(message), None
    copy.message = copy.msg
    for key, value in list(vars(copy).items()):
        if isinstance(value, str) and key not in ("msg", "message"):
            setattr(copy, key, scrub(value))
        elif key not in ("exc_info", "args") and isinstance(value, (list, tuple, dict, bytes)):
            setattr(copy, key, scrub(repr(value)))
    if record.exc_info and record.exc_info[0] is not None:
        kind, value, tb = record.exc_info
        copy.exc_text = scrub("".join(traceback.format_exception(kind, value, tb))).rstrip("\n")
        said = scrub(str(value.args[0])) if value is not None and value.args else ""
        stand_in = type(kind.__name__, (_Shown,), {})(said)  # the type name survives
        copy.exc_info = (kind, stand_in, None)  # no traceback object: its frames hold values
        copy.__dict__["exception.stacktrace"] = copy.exc_text  # OpenTelemetry's attribute
    return copy


def _already_scrubbed(handler: logging.Handler) -> bool:
    # toolhost's own handler: a stream handler on the scrubbed stderr (or its JSON lines)
    from toolhost.logformat import JsonLines
    from toolhost.redaction import ScrubbingStream

    stream = getattr(handler, "stream", None) if isinstance(handler, logging.StreamHandler) \
        else None
    return isinstance(stream, (ScrubbingStream, JsonLines))


def _hiding(emit: Callable[[logging.LogRecord], Any]) -> Callable[[logging.LogRecord], Any]:
    def emit_shown(record: logging.LogRecord) -> Any:
        return emit(shown_record(record))
    return emit_shown


def hide_secrets_in_handlers() -> int:
    """Wrap ``emit`` of every handler on every logger, except toolhost's scrubbed stderr one,
    so it only sees redacted copies; returns how many were wrapped now (each once)."""
    loggers: list[Any] = [logging.getLogger()]
    loggers += list(logging.Logger.manager.loggerDict.values())
    wrapped = 0
    for logger in loggers:
        for handler in list(getattr(logger, "handlers", ())):
            if getattr(handler, _MARK, False) or _already_scrubbed(handler):
                continue
            handler.emit = _hiding(handler.emit)
            setattr(handler, _MARK, True)
            wrapped += 1
    return wrapped
