"""Spans that other instrumentations make (an http tool's request URL, the client's query
string and headers) are redacted too: ``redact_spans`` on the SDK's real tracer provider,
spans written the ways an instrumentation writes them, exported by the real in-memory
exporter (added first, as ``opentelemetry-instrument`` does)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from opentelemetry.sdk import trace as sdk_trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from toolhost.redaction import remember
from toolhost.serve.span_redaction import redact_future_providers, redact_spans

SECRET = "apiKEYq8w7e6r5"


def test_every_span_of_the_provider_is_redacted_from_its_start(
        monkeypatch: pytest.MonkeyPatch) -> None:
    remember([SECRET])  # as loading a config with it does
    # a provider as the SDK makes it, even when a command run in this process earlier
    # (`toolhost call` in-process) made every later provider redact from its making
    made = getattr(TracerProvider.__init__, "__wrapped__", None)
    if made is not None:
        monkeypatch.setattr(TracerProvider, "__init__", made)
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    assert redact_spans(provider) and not redact_spans(provider)  # once
    tracer = provider.get_tracer("an.instrumentation")

    with tracer.start_as_current_span(
            f"GET /x?key={SECRET}", kind=SpanKind.CLIENT,
            attributes={"http.url": f"http://api.example/x?key={SECRET}",
                        "http.method": "GET"}) as span:
        span.set_attribute("http.request.header.authorization", (f"Bearer {SECRET}",))
        span.set_attributes({"url.query": f"access_token={SECRET}", "http.status_code": 500})
        span.add_event("retry", {"reason": f"401 for {SECRET}"})
        span.record_exception(ValueError(f"bad key {SECRET}"))
        span.set_status(Status(StatusCode.ERROR, f"failed with {SECRET}"))
    with tracer.start_as_current_span("second") as span:
        span.update_name(f"POST {SECRET}")
        span.set_status(StatusCode.ERROR, f"failed with {SECRET}")

    first, second = spans.get_finished_spans()
    exported = json.dumps([{"name": s.name, "attributes": dict(s.attributes or {}),
                            "events": [[e.name, dict(e.attributes or {})] for e in s.events],
                            "status": s.status.description} for s in (first, second)])
    assert SECRET not in exported
    assert first.attributes is not None
    assert first.attributes["http.url"] == "http://api.example/x?key=***"
    assert first.attributes["http.request.header.authorization"] == ("Bearer ***",)
    assert first.attributes["http.status_code"] == 500 and first.attributes["http.method"] == "GET"
    assert "bad key ***" in exported  # the exception event, redacted
    assert second.name == "POST ***" and second.status.description == "failed with ***"


def test_a_provider_made_after_start_redacts_its_spans(monkeypatch: pytest.MonkeyPatch) -> None:
    remember([SECRET])
    monkeypatch.setattr(TracerProvider, "__init__", TracerProvider.__init__)  # put back after
    redact_future_providers()  # the SDK already imported: its class is patched now
    redact_future_providers()  # once
    spans = InMemorySpanExporter()
    provider = sdk_trace.TracerProvider()  # made later (an embedding program, a tool)
    provider.add_span_processor(SimpleSpanProcessor(spans))
    with provider.get_tracer("late").start_as_current_span(
            "GET", attributes={"url.full": f"http://api.example/x?key={SECRET}"}) as span:
        span.set_attribute("url.query", f"key={SECRET}")
    (exported,) = spans.get_finished_spans()
    assert dict(exported.attributes or {}) == {"url.full": "http://api.example/x?key=***",
                                               "url.query": "key=***"}


# A process where OpenTelemetry is configured only after the command set up its redaction
# (as ``toolhost run`` and ``call`` and ``serve`` do first): the SDK imported later, a tracer
# provider and a log export made later, the collector's credential in the environment.
_LATE = textwrap.dedent("""
    import json, logging, sys, warnings
    from toolhost.redaction import remember
    from toolhost.serve.redact_telemetry import redact_telemetry
    assert "opentelemetry.sdk.trace" not in sys.modules
    redact_telemetry()
    remember([sys.argv[1]])
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
    from opentelemetry.sdk._logs import export as log_export
    secret, own = sys.argv[1], sys.argv[2]
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    with provider.get_tracer("late").start_as_current_span(f"GET /x?key={secret}") as span:
        span.set_attribute("http.request.header.authorization", f"Bearer {own}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        logs = getattr(log_export, "InMemoryLogRecordExporter",
                       getattr(log_export, "InMemoryLogExporter", None))()
        logger_provider = LoggerProvider()
        logger_provider.add_log_record_processor(log_export.SimpleLogRecordProcessor(logs))
        logging.getLogger().addHandler(LoggingHandler(logger_provider=logger_provider))
    logging.getLogger("a.tool").warning("using key %s and %s", secret, own)
    logger_provider.get_logger("direct").emit(body=f"direct {secret} {own}")  # logs API
    (shown,) = spans.get_finished_spans()
    print(json.dumps({"name": shown.name, "attributes": dict(shown.attributes or {}),
                      "logs": [str(r.log_record.body) for r in logs.get_finished_logs()]}))
""")


def test_providers_and_handlers_set_up_later_in_the_process_are_redacted() -> None:
    own = "c0llectorTok3nLate"
    done = subprocess.run([sys.executable, "-c", _LATE, SECRET, own], capture_output=True,
                          text=True, timeout=60, check=False,
                          env={"OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer%20{own}",
                               "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result == {"name": "GET /x?key=***",
                      "attributes": {"http.request.header.authorization": "***"},
                      "logs": ["using key *** and ***", "direct *** ***"]}


PIECES = ("sk-live-9", "f8e7d6c5", "b4a3921")  # of a secret; each shorter than a known piece
SPREAD = {
    "a sequence's items": lambda span: span.set_attribute("h", PIECES),
    "values of one call": lambda span: span.set_attributes(
        {f"p{i}": piece for i, piece in enumerate(PIECES)}),
    "started with them": None,
}


@pytest.mark.parametrize("how", SPREAD.values(), ids=list(SPREAD))
def test_a_secret_spread_over_a_spans_attributes_is_hidden(
        monkeypatch: pytest.MonkeyPatch, how: object) -> None:
    remember(["".join(PIECES)])
    made = getattr(TracerProvider.__init__, "__wrapped__", None)
    if made is not None:
        monkeypatch.setattr(TracerProvider, "__init__", made)
    spans = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(spans))
    redact_spans(provider)
    started = {"a": PIECES[0], "b": PIECES[1], "c": PIECES[2]} if how is None else {}
    with provider.get_tracer("t").start_as_current_span("s", attributes=started) as span:
        span.set_attribute("http.method", "GET")
        if callable(how):
            how(span)
    (finished,) = spans.get_finished_spans()
    shown = json.dumps(dict(finished.attributes or {}))
    assert PIECES[1] not in shown and PIECES[2] not in shown and "***" in shown
    assert (finished.attributes or {})["http.method"] == "GET"
