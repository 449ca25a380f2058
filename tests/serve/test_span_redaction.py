"""Spans that other instrumentations make (an http tool's request URL, the client's query
string and headers) are redacted too: ``redact_spans`` on the SDK's real tracer provider,
spans written the ways an instrumentation writes them, exported by the real in-memory
exporter (added first, as ``opentelemetry-instrument`` does)."""

from __future__ import annotations

import json

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, Status, StatusCode

from toolhost.redaction import remember
from toolhost.serve.span_redaction import redact_spans

SECRET = "apiKEYq8w7e6r5"


def test_every_span_of_the_provider_is_redacted_from_its_start() -> None:
    remember([SECRET])  # as loading a config with it does
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
