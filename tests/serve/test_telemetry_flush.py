"""What OpenTelemetry still holds is exported before ``serve`` exits (``telemetry_flush``):
``serve --transport http`` ends by the signal, so the SDK's atexit flush never runs. The flush
is bounded: a collector that hangs never holds the exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from tests.modern import modern_meta
from tests.serve.conftest import HERE
from toolhost.serve import telemetry_flush


class _Kept(SpanExporter):
    def __init__(self, release: threading.Event | None = None) -> None:
        self.names: list[str] = []
        self.release = release

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        if self.release is not None:
            self.release.wait(30)  # a collector that does not answer
        self.names.extend(span.name for span in spans)
        return SpanExportResult.SUCCESS


def _provider(exporter: SpanExporter, monkeypatch: pytest.MonkeyPatch) -> TracerProvider:
    # made as the SDK's own (not the redacting subclass an in-process serve may have patched in)
    init = getattr(TracerProvider.__init__, "__wrapped__", None)
    if init is not None:
        monkeypatch.setattr(TracerProvider, "__init__", init)
    provider = TracerProvider()
    # an export only every ten minutes: what the exit would lose
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=600_000))
    import opentelemetry.trace

    monkeypatch.setattr(opentelemetry.trace, "get_tracer_provider", lambda: provider)
    return provider


def test_the_spans_held_back_are_exported(monkeypatch: pytest.MonkeyPatch) -> None:
    exporter = _Kept()
    provider = _provider(exporter, monkeypatch)
    for name in ("tools/call a", "tools/call b"):
        provider.get_tracer("t").start_span(name).end()
    assert exporter.names == []
    assert telemetry_flush.flush_telemetry() is True
    assert exporter.names == ["tools/call a", "tools/call b"]
    provider.shutdown()


def test_a_collector_that_hangs_never_holds_the_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()
    exporter = _Kept(release)
    provider = _provider(exporter, monkeypatch)
    provider.get_tracer("t").start_span("tools/call a").end()
    try:
        assert telemetry_flush.flush_telemetry(0.05) is False  # gave up; the export still waits
        assert exporter.names == []
    finally:
        release.set()
        provider.shutdown()


def test_nothing_to_flush_without_opentelemetry(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, _ in telemetry_flush._PROVIDERS:
        monkeypatch.delitem(sys.modules, name, raising=False)
    assert telemetry_flush._current_providers() == []
    assert telemetry_flush.flush_telemetry() is True


_SERVE_UNDER_AN_SDK = """
import sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

class ToFile(SpanExporter):
    def export(self, spans):
        with open(sys.argv[1], "a") as out:
            out.writelines(span.name + "\\n" for span in spans)
        return SpanExportResult.SUCCESS

provider = TracerProvider()
provider.add_span_processor(BatchSpanProcessor(ToFile(), schedule_delay_millis=600_000))
trace.set_tracer_provider(provider)
from toolhost.cli import main
sys.exit(main(sys.argv[2:]))
"""


def test_a_served_calls_span_reaches_the_exporter_after_sigterm(tmp_path: Path) -> None:
    config = tmp_path / "s.yaml"
    config.write_text("toolhost: 1\nservers:\n  s:\n    tools:\n"
                      "      nap: {python: \"shutdown_tools:nap\"}\n"
                      "permissions: {default: allow}\n")
    spans, log = tmp_path / "spans.txt", tmp_path / "server.log"
    env = {**os.environ, "TOOLHOST_SHUTDOWN_QUIET": "0", "PYTHONPATH": os.pathsep.join(
        p for p in (str(HERE), str(HERE.parent.parent), os.environ.get("PYTHONPATH")) if p)}
    with open(log, "wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", _SERVE_UNDER_AN_SDK, str(spans), "serve",
                                 str(config), "--transport", "http", "--port", "0"],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err, env=env)
    try:
        deadline = time.monotonic() + 30
        while "serving MCP on " not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        url = log.read_text().split("serving MCP on ", 1)[1].split()[0]
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "nap", "arguments": {"seconds": 0},
            "_meta": modern_meta()}}
        request = urllib.request.Request(url, json.dumps(body).encode(), {
            "content-type": "application/json", "accept": "application/json",
            "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "nap"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            assert json.loads(answer.read())["result"]["isError"] is False
        assert not spans.exists()  # held back by the batch processor
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == -signal.SIGTERM  # ends by the signal, as uvicorn does
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert spans.read_text().splitlines() == ["tools/call nap"], log.read_text()
