"""Secrets hidden from every log handler, not only from stderr.

toolhost's own handler writes to stderr, which is scrubbed as a stream. Any other handler on
a logger (OpenTelemetry's log export, ``OTEL_LOGS_EXPORTER=otlp`` with
``OTEL_PYTHON_LOGGING_AUTO_INSTRUMENTATION_ENABLED=true``, which ships each record's message,
``extra`` fields and exception to a collector; a file or syslog handler a library added) would
get the record as a tool or library logged it: ``log.warning("key %s", token)`` in clear.
``hide_secrets_in_handlers`` makes each such handler, whenever it was added (before
``serve`` started or after, by an embedding program or a tool), get a copy of the record with
every text redacted (the message with its arguments, ``extra`` fields, the exception's message and
traceback, ``stack_info``); the original record, and toolhost's own handler, are untouched.
"""

from __future__ import annotations

import logging
import sys
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


def _hide_in(handler: logging.Handler) -> None:
    """Make ``handler`` emit redacted copies (once; not toolhost's scrubbed stderr one). Its
    filters still see the record itself (a rate limit keyed on the format string)."""
    if getattr(handler, _MARK, False):
        return
    if not _already_scrubbed(handler):
        handler.emit = _hiding(handler.emit)  # type: ignore[method-assign,assignment]
    setattr(handler, _MARK, True)


def _call_handlers(self: logging.Logger, record: logging.LogRecord) -> None:
    """``logging.Logger.callHandlers`` (same walk up the hierarchy, same last resort), each
    handler first made to emit redacted copies, whenever it was added."""
    found = 0
    current: logging.Logger | None = self
    while current is not None:
        for handler in current.handlers:
            found += 1
            if record.levelno >= handler.level:
                _hide_in(handler)
                handler.handle(record)
        current = current.parent if current.propagate else None
    if found == 0:
        last = logging.lastResort
        if last is not None:
            if record.levelno >= last.level:
                _hide_in(last)  # sys.stderr, which ``toolhost call`` does not scrub
                last.handle(record)
        elif logging.raiseExceptions and not self.manager.emittedNoHandlerWarning:
            sys.stderr.write(f"No handlers could be found for logger \"{self.name}\"\n")
            self.manager.emittedNoHandlerWarning = True


def hide_secrets_in_handlers() -> bool:
    """From now on every handler of every logger, added before or after this call (a tracer's
    log export an embedding program sets up later, a library's file handler), except
    toolhost's scrubbed stderr one, only gets redacted copies of records; whether this call
    put the hook in (it is put in once per process)."""
    if getattr(logging.Logger.callHandlers, _MARK, False):
        return False
    setattr(_call_handlers, _MARK, True)
    logging.Logger.callHandlers = _call_handlers  # type: ignore[method-assign]
    return True
