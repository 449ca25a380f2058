"""Secrets hidden from every span the process exports, not only toolhost's own.

toolhost's ``tools/call`` spans are redacted where they are made (``telemetry.shown``). But
``opentelemetry-instrument`` with the instrumentations ``opentelemetry-bootstrap`` installs
also traces what toolhost does through libraries: an http tool's request (``http.url`` with
``?key=${API_KEY}``, and the ``Authorization`` header when header capture is on), the
request a client made (its query string, its bearer token). ``redact_spans`` adds a span
processor to the SDK's tracer provider that redacts each span from its start: the attributes
it was started with, then whatever is set on it (attributes, events and exceptions, status
description, name), like every line on stderr. Without an SDK provider it does nothing.
``redact_future_providers`` does the same for every SDK tracer provider made later (an
embedding program, a tool, an ``opentelemetry-instrument`` variant that configures tracing
after start-up): each gets the processor as it is made, first of its processors. The SDK is
not imported for that: the hook waits for its import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["RedactingProcessor", "redact_future_providers", "redact_spans", "shown_value",
           "when_imported"]

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
    """``attributes`` with every key and text hidden alone, then read together: a secret
    split between keys, values and a sequence's items (``("sk-live-9", "f8e7d6c5", ...)``,
    each shorter than a piece is known by) hides every text it reaches into, whole."""
    if attributes is None:
        return None
    shown = {str(shown_value(k)): shown_value(v) for k, v in attributes.items()}
    return _joined(shown) if shown else shown


def _joined(attributes: dict[str, Any]) -> dict[str, Any]:
    from toolhost.redaction import MASK, active

    hide = active()
    if not hide:
        return attributes
    keys: list[str] = []  # read twice: keys and values as set, then the values alone
    values: list[str] = []
    for key, value in attributes.items():
        keys.append(key)
        items = value if isinstance(value, tuple) else (value,)
        keys += [item for item in items if isinstance(item, str)]
        values += [item for item in items if isinstance(item, str)]
    texts = keys + values
    covered: set[str] = set()  # the texts a secret found in their join reaches into
    starts, at = [], 0
    for text in texts:
        starts.append(at)
        at += len(text) + 1
    for lo, hi in hide.spans("\n".join(texts)):
        covered |= {text for text, start in zip(texts, starts, strict=True)
                    if start < hi and lo < start + len(text)}
    if not covered:
        return attributes
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if key in covered:  # two keys hidden alike: both kept, told apart
            key = next(k for n in range(1, len(out) + 2)
                       if (k := MASK if n == 1 else f"{MASK}#{n}") not in out)
        if isinstance(value, tuple):
            value = tuple(MASK if v in covered else v for v in value)
        elif isinstance(value, str) and value in covered:
            value = MASK
        out[key] = value
    return out


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
        set_attributes(_shown({key: value}))

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
    if add is None or getattr(provider, "__dict__", {}).get(_MARK, False):
        return False
    add(RedactingProcessor())
    setattr(provider, _MARK, True)
    return True


_SDK = "opentelemetry.sdk.trace"
_CLASS_MARK = "_toolhost_redacts_its_providers"  # on the patched __init__, not the class


def _patch_sdk(module: Any) -> None:
    """Every ``TracerProvider`` ``module`` makes from now on redacts its spans."""
    cls = getattr(module, "TracerProvider", None)
    if cls is None or getattr(cls.__init__, _CLASS_MARK, False):
        return
    made = cls.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        made(self, *args, **kwargs)
        redact_spans(self)

    setattr(__init__, _CLASS_MARK, True)
    __init__.__wrapped__ = made  # type: ignore[attr-defined]  # the SDK's own, as functools
    cls.__init__ = __init__


class _WhenImported:
    """A finder on ``sys.meta_path`` that only watches one module's import (``name``), to
    ``patch`` it once loaded; it finds nothing itself (the usual finders do)."""

    def __init__(self, name: str = _SDK, patch: Callable[[Any], None] = _patch_sdk) -> None:
        self.name, self.patch = name, patch

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != self.name:
            return None
        import importlib.util
        import sys

        with __import__("contextlib").suppress(ValueError):
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        loader = getattr(spec, "loader", None)
        run = getattr(loader, "exec_module", None)
        if spec is None or run is None:
            return spec
        patch = self.patch

        def exec_module(module: Any) -> None:
            run(module)
            patch(module)

        loader.exec_module = exec_module  # type: ignore[union-attr]
        return spec


def when_imported(name: str, patch: Callable[[Any], None]) -> None:
    """``patch(module)`` once ``name`` is imported: now, if it is already."""
    import sys

    module = sys.modules.get(name)
    if module is not None:
        patch(module)
    elif not any(isinstance(f, _WhenImported) and f.name == name for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenImported(name, patch))


def redact_future_providers() -> None:
    """Every SDK tracer provider made from now on redacts its spans (``redact_spans``)."""
    when_imported(_SDK, _patch_sdk)
