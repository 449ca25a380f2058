"""Secrets hidden from every span the process exports, not only toolhost's own.

toolhost's ``tools/call`` spans are redacted where they are made (``telemetry.shown``). But
``opentelemetry-instrument`` with the instrumentations ``opentelemetry-bootstrap`` installs
also traces what toolhost does through libraries: an http tool's request (``http.url`` with
``?key=${API_KEY}``, and the ``Authorization`` header when header capture is on), the
request a client made (its query string, its bearer token). ``redact_spans`` adds a span
processor to the SDK's tracer provider that redacts each span from its start: the attributes
it was started with, then whatever is set on it (attributes, events and exceptions, status
description, name), like every line on stderr. Without an SDK provider it does nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["RedactingProcessor", "redact_spans", "shown_value"]

_MARK = "_toolhost_redacts_spans"


def shown_value(value: Any) -> Any:
    """An attribute value with every secret hidden: a text, or each text of a sequence."""
    from toolhost.redaction import scrub

    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, (list, tuple)):
        return tuple(scrub(v) if isinstance(v, str) else v for v in value)
    if isinstance(value, bytes):
        return scrub(value.decode("utf-8", "replace"))
    return value


def _shown(attributes: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if attributes is None:
        return None
    return {str(shown_value(k)): shown_value(v) for k, v in attributes.items()}


def _redacting(span: Any) -> None:
    """Redact what ``span`` holds now, and everything set on it from now on."""
    set_attributes, add_event = span.set_attributes, span.add_event
    set_status, update_name = span.set_status, span.update_name
    started = dict(getattr(span, "attributes", None) or {})
    if started:
        set_attributes(_shown(started))
    name = getattr(span, "name", None)
    if isinstance(name, str) and shown_value(name) != name:
        update_name(shown_value(name))

    def set_attribute(key: str, value: Any) -> None:
        set_attributes({shown_value(key): shown_value(value)})

    def add_event_shown(name: str, attributes: Any = None, timestamp: Any = None) -> None:
        add_event(shown_value(name), _shown(attributes), timestamp)

    def set_status_shown(status: Any, description: str | None = None) -> None:
        from opentelemetry.trace import Status

        if isinstance(status, Status) and status.description:
            status = Status(status.status_code, shown_value(status.description))
        set_status(status, shown_value(description) if description else description)

    span.set_attribute = set_attribute
    span.set_attributes = lambda attributes: set_attributes(_shown(attributes))
    span.add_event = add_event_shown  # record_exception adds its event through it
    span.set_status = set_status_shown
    span.update_name = lambda name: update_name(shown_value(name))


class RedactingProcessor:
    """A span processor (the SDK's interface, duck-typed) that only redacts, at ``on_start``."""

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        import contextlib

        with contextlib.suppress(Exception):  # a span of another SDK: never break the caller
            _redacting(span)

    def _on_ending(self, span: Any) -> None:
        pass

    def on_end(self, span: Any) -> None:
        pass

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return True


def redact_spans(provider: Any = None) -> bool:
    """Add a ``RedactingProcessor`` to ``provider`` (default: the global tracer provider) when
    it is the SDK's and has none yet; whether one was added."""
    if provider is None:
        import sys

        trace = sys.modules.get("opentelemetry.trace")  # configured at start-up, or not at all
        if trace is None:
            return False
        provider = trace.get_tracer_provider()
    add = getattr(provider, "add_span_processor", None)
    if add is None or getattr(provider, _MARK, False):
        return False
    add(RedactingProcessor())
    setattr(provider, _MARK, True)
    return True
