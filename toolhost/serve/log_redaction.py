"""Secrets hidden from log records written through the OpenTelemetry logs API directly.

Python ``logging`` records reach OpenTelemetry's log export through a handler, which gets
redacted copies (``log_handlers``). But a library, an instrumentation or a tool may write to
the logs API itself (``get_logger(...).emit(LogRecord(body=..., attributes=...))``, or an
``event_name`` record): no handler is in the way, and such a record went to the collector
as written. ``redact_logs`` makes the SDK's logger provider redact every record before any
of its processors sees it (the body, nested values of a structured body, attribute keys and
values, the exception attributes, the event name), like a line on stderr. A processor cannot
do that: processors run in the order they were added (``opentelemetry-instrument`` adds its
exporter's first, at start) or all at once (the concurrent multi-processor), so the
provider's own dispatch is wrapped instead. A record that cannot be redacted is withheld
(its body says so), never sent as written. ``redact_future_log_providers`` does the same for
every SDK logger provider made later. The SDK is not imported for that.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

__all__ = ["redact_future_log_providers", "redact_logs", "shown_any"]

_MARK = "_toolhost_redacts_logs"
_SDK = "opentelemetry.sdk._logs._internal"
_CLASS_MARK = "_toolhost_redacts_its_log_providers"
WITHHELD = "[a log record toolhost could not redact was withheld]"
_DEPTH = 32  # a structured body nests at most this deep before the rest is one text


def shown_any(value: Any, depth: int = 0) -> Any:
    """A log body or attribute value (AnyValue: text, bytes, a list, a map, nested) with
    every secret hidden."""
    from toolhost.redaction import scrub

    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value).decode("utf-8", "replace")
        shown = scrub(text)
        return value if shown == text else shown.encode()
    if depth >= _DEPTH and isinstance(value, (Mapping, list, tuple)):
        return scrub(repr(value))
    if isinstance(value, Mapping):
        return {str(scrub(str(k))): shown_any(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [shown_any(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return tuple(shown_any(v, depth + 1) for v in value)
    return value


def _redact(record: Any) -> None:
    """Redact, in place, the record a logger hands its processors (``ReadWriteLogRecord``:
    the SDK already made its attributes its own)."""
    inner = getattr(record, "log_record", record)
    inner.body = shown_any(inner.body)
    event = getattr(inner, "event_name", None)
    if isinstance(event, str):
        inner.event_name = shown_any(event)
    attributes = inner.attributes
    if attributes:
        shown = {str(shown_any(str(k))): shown_any(v) for k, v in attributes.items()}
        if shown != dict(attributes):
            for key in list(attributes):
                del attributes[key]
            for key, value in shown.items():
                attributes[key] = value


def _withhold(record: Any) -> None:
    inner = getattr(record, "log_record", record)
    with contextlib.suppress(Exception):
        inner.body = WITHHELD
    with contextlib.suppress(Exception):
        inner.attributes = {}
    with contextlib.suppress(Exception):
        inner.event_name = None


def redact_logs(provider: Any = None) -> bool:
    """Make ``provider`` (default: the global logger provider, when the SDK's) redact each
    record before its processors see it; whether this call did (once per provider)."""
    if provider is None:
        import sys

        logs = sys.modules.get("opentelemetry._logs")  # configured at start-up, or never
        if logs is None:
            return False
        provider = logs.get_logger_provider()
    if getattr(provider, "__dict__", {}).get(_MARK, False):
        return False
    dispatch: Any = getattr(provider, "_multi_log_record_processor", None)
    emit = getattr(dispatch, "on_emit", None)
    if emit is None:
        return False

    def on_emit(record: Any) -> None:
        try:
            _redact(record)
        except Exception:  # fail closed: a record not redacted is not sent as written
            _withhold(record)
        emit(record)

    dispatch.on_emit = on_emit
    setattr(provider, _MARK, True)
    return True


def _patch_sdk(module: Any) -> None:
    """Every ``LoggerProvider`` ``module`` makes from now on redacts its records."""
    cls = getattr(module, "LoggerProvider", None)
    if cls is None or getattr(cls.__init__, _CLASS_MARK, False):
        return
    made = cls.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        redact_logs(self)

    setattr(__init__, _CLASS_MARK, True)
    __init__.__wrapped__ = made  # type: ignore[attr-defined]  # the SDK's own, as functools
    cls.__init__ = __init__


def redact_future_log_providers() -> None:
    """Every SDK logger provider made from now on redacts its records (``redact_logs``)."""
    from toolhost.serve.span_redaction import when_imported

    when_imported(_SDK, _patch_sdk)
