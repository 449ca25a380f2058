"""OpenTelemetry: a span per tools/call with the tool, the permission decision and the
outcome; a duration histogram and a call counter (the SDK's in-memory exporters)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolhost.serve.build import Server, build_serve
from toolhost.serve.telemetry import Telemetry

pytestmark = pytest.mark.anyio

CONFIG = """\
toolhost: 1
servers:
  t:
    tools:
      hi: {command: [echo, hi]}
      nope: {command: [echo, nope]}
permissions:
  allow: [mcp__t__hi]
  deny: [mcp__t__nope]
"""


async def test_each_call_is_a_span_with_its_decision_and_a_measurement(tmp_path: Path) -> None:
    config = tmp_path / "t.yaml"
    config.write_text(CONFIG)
    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    server = Server(build_serve(config))
    server.served.telemetry = Telemetry(tracing, MeterProvider(metric_readers=[reader]))

    async def call(name: str, request_id: int) -> dict[str, Any] | None:
        return await server.served.handle({"jsonrpc": "2.0", "id": request_id,
                                           "method": "tools/call",
                                           "params": {"name": name, "arguments": {}}})

    try:
        assert (await call("hi", 1))["result"]["isError"] is False  # type: ignore[index]
        assert (await call("nope", 2))["result"]["isError"] is True  # type: ignore[index]
        assert "error" in (await call("missing", 3) or {})
        for n in range(30):  # made-up names: one metric series between them, not 30
            assert "error" in (await call(f"made-up-{n}", 10 + n) or {})
        await server.served.handle({"jsonrpc": "2.0", "id": 4, "method": "ping"})
    finally:
        await server.aclose()
    finished = {s.name: s for s in spans.get_finished_spans()}
    assert {"tools/call hi", "tools/call nope", "tools/call missing"} <= set(finished)
    hi, no = finished["tools/call hi"], finished["tools/call nope"]
    assert hi.attributes["gen_ai.tool.name"] == "hi"
    assert hi.attributes["toolhost.permission.decision"] == "allow"
    assert no.attributes["toolhost.permission.decision"] == "deny"
    assert no.attributes["error.type"] == "tool_error" and not no.status.is_ok
    assert finished["tools/call missing"].attributes["error.type"] == "jsonrpc_error"
    points = {(tuple(sorted(p.attributes.items())), p.value)
              for m in reader.get_metrics_data().resource_metrics[0].scope_metrics[0].metrics
              if m.name == "toolhost.tool.calls" for p in m.data.data_points}
    assert ((("gen_ai.tool.name", "hi"), ("toolhost.outcome", "ok"),
              ("toolhost.permission.decision", "allow")), 1) in points
    assert ((("gen_ai.tool.name", "nope"), ("toolhost.outcome", "tool_error"),
              ("toolhost.permission.decision", "deny")), 1) in points
    assert ((("gen_ai.tool.name", "?"), ("toolhost.outcome", "jsonrpc_error"),
              ("toolhost.permission.decision", "unknown")), 31) in points
    assert len(points) == 3, points


def test_telemetry_can_be_turned_off() -> None:
    assert Telemetry.maybe({"TOOLHOST_OTEL": "0"}) is None
    assert Telemetry.maybe({}) is not None  # the API is installed in the test environment
