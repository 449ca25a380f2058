"""OpenTelemetry spans are redacted like the audit log: a secret in a rule's text, the tool
name or request id a client sends, or the caller never reaches the exporter; the rule
attribute reads as ``permissions list`` shows it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from toolhost.permissions.callers.identity import Caller, as_caller
from toolhost.serve.build import Server, build_serve
from toolhost.serve.telemetry import Telemetry

pytestmark = pytest.mark.anyio

SECRET = "Sup3rSecretPw!x9"

HEAD = """\
toolhost: 1
servers:
  t:
    env: {DB_PASSWORD: "${DB_PASSWORD}"}
    tools:
      hi: {command: [echo, hi]}
permissions:
"""

# (rules, arguments, decision): each rule's text holds the secret in another place
RULES = {
    "when regex": ("  default: allow\n  deny:\n    - tool: mcp__t__hi\n"
                   "      when: {text: {regex: \".*${DB_PASSWORD}.*\"}}\n"
                   "      message: never send the password\n",
                   {"text": f"xx {SECRET} yy"}, "deny"),
    "when equals, allow": ("  default: deny\n  allow:\n    - tool: mcp__t__hi\n"
                           "      when: {text: {equals: \"${DB_PASSWORD}\"}}\n",
                           {"text": SECRET}, "allow"),
    "when glob, ask": ("  default: allow\n  ask:\n    - tool: mcp__t__hi\n"
                       "      when: {text: {glob: \"*${DB_PASSWORD}*\"}}\n",
                       {"text": f"a{SECRET}b"}, "deny"),  # nobody to ask under serve
    "url rule userinfo": ("  default: allow\n  deny:\n    - tool: mcp__t__hi\n"
                          "      when: {url: {glob: \"https://u:${DB_PASSWORD}@h/*\"}}\n",
                          {"url": f"https://u:{SECRET}@h/x"}, "deny"),
    "long rule, secret at the cut": (
        "  default: allow\n  deny:\n    - tool: mcp__t__hi\n"
        "      when: {text: {regex: \"" + "a" * 250 + "${DB_PASSWORD}.*\"}}\n",
        {"text": "a" * 250 + SECRET}, "deny"),
}


def _exported(spans: InMemorySpanExporter, reader: InMemoryMetricReader) -> str:
    out = [{"name": s.name, "attributes": dict(s.attributes or {}),
            "events": [dict(e.attributes or {}) for e in s.events]}
           for s in spans.get_finished_spans()]
    metrics = reader.get_metrics_data()
    points = [dict(p.attributes) for rm in metrics.resource_metrics
              for sm in rm.scope_metrics for m in sm.metrics for p in m.data.data_points]
    return json.dumps({"spans": out, "points": points})


async def _traced(tmp_path: Path, rules: str, messages: list[dict[str, Any]],
                  caller: Caller | None = None) -> tuple[str, list[Any]]:
    config = tmp_path / "t.yaml"
    config.write_text(HEAD + rules)
    spans, reader = InMemorySpanExporter(), InMemoryMetricReader()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    server = Server(build_serve(config))
    server.served.telemetry = Telemetry(tracing, MeterProvider(metric_readers=[reader]))
    try:
        with as_caller(caller):
            for message in messages:
                await server.served.handle(message)
    finally:
        await server.aclose()
    return _exported(spans, reader), list(spans.get_finished_spans())


def _call(name: str, arguments: dict[str, Any], request_id: Any = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}


@pytest.mark.parametrize("case", sorted(RULES))
async def test_the_rule_on_a_span_is_redacted_as_permissions_list_shows_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    monkeypatch.setenv("DB_PASSWORD", SECRET)
    rules, arguments, decision = RULES[case]
    exported, finished = await _traced(tmp_path, rules, [_call("hi", arguments)])
    assert SECRET not in exported and SECRET[:8] not in exported
    (span,) = finished
    assert span.attributes["toolhost.permission.decision"] == decision
    rule = str(span.attributes["toolhost.permission.rule"])
    assert "***" in rule and len(rule) <= 300


@pytest.mark.parametrize("where", ["tool name", "request id", "caller", "all"])
async def test_what_the_client_sends_is_redacted_on_spans_and_labels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str) -> None:
    monkeypatch.setenv("DB_PASSWORD", SECRET)
    name = f"hi{SECRET}" if where in ("tool name", "all") else "hi"
    request_id = f"r-{SECRET}" if where in ("request id", "all") else 7
    subject = f"{SECRET}@example.com" if where in ("caller", "all") else "alice"
    caller = Caller(subject=subject, issuer="https://issuer.example",
                    scopes=frozenset(), groups=frozenset())
    exported, finished = await _traced(tmp_path, "  default: allow\n",
                                       [_call(name, {}, request_id)], caller)
    assert SECRET not in exported
    assert len(finished) == 1 and "***" in exported


def test_shown_hides_before_it_cuts(monkeypatch: pytest.MonkeyPatch) -> None:
    from toolhost.redaction import remember
    from toolhost.serve.telemetry import shown

    remember([SECRET])
    text = "x" * 295 + SECRET
    assert SECRET[:5] not in shown(text, 300)
    assert shown(text, 300) == "x" * 295 + "***"


async def test_an_exception_escaping_the_call_is_redacted_on_its_span() -> None:
    from toolhost.redaction import remember

    remember([SECRET])
    spans = InMemorySpanExporter()
    tracing = TracerProvider()
    tracing.add_span_processor(SimpleSpanProcessor(spans))
    telemetry = Telemetry(tracing, MeterProvider())

    async def handle(message: Any, **kwargs: Any) -> dict[str, Any] | None:
        raise ValueError(f"upstream said: bad key {SECRET}")

    with pytest.raises(ValueError):
        await telemetry.around(_call("hi", {}), handle)
    (span,) = spans.get_finished_spans()
    shown = json.dumps({"events": [[e.name, dict(e.attributes or {})] for e in span.events],
                        "status": span.status.description,
                        "attributes": dict(span.attributes or {})})
    assert SECRET not in shown
    assert "upstream said: bad key ***" in shown and span.attributes["error.type"] == "ValueError"


def test_the_collectors_credentials_are_serves_own_secrets() -> None:
    from toolhost.serve.telemetry import collector_credentials

    environ = {"OTEL_EXPORTER_OTLP_HEADERS": "authorization=Bearer%20c0llectorTok3n,x-x=",
               "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "api-key=tr4cesK3y, dd-api-key = k%3Dv9q",
               "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}
    assert collector_credentials(environ) == [
        "Bearer c0llectorTok3n", "c0llectorTok3n", "tr4cesK3y", "k=v9q"]
    assert collector_credentials({}) == []
