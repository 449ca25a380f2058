"""Records written to the OpenTelemetry logs API directly (not through Python ``logging``)
are redacted before any processor sees them: the real SDK logger provider, its exporter's
processor added first (as ``opentelemetry-instrument`` does), the sync and the concurrent
dispatch, records written every way the API offers, and a provider made later."""

from __future__ import annotations

import json
from typing import Any

import pytest
from opentelemetry._logs import LogRecord
from opentelemetry.sdk._logs import (
    ConcurrentMultiLogRecordProcessor,
    LoggerProvider,
    SynchronousMultiLogRecordProcessor,
)
from opentelemetry.sdk._logs import export as log_export

from toolhost.redaction import remember
from toolhost.serve import log_redaction
from toolhost.serve.log_redaction import redact_future_log_providers, redact_logs

SECRET = "logKEYz9x8c7v6"


def _plain(monkeypatch: pytest.MonkeyPatch) -> None:
    """A provider as the SDK makes it, even when an earlier test (or in-process command)
    made every later provider redact from its making."""
    made = getattr(LoggerProvider.__init__, "__wrapped__", None)
    if made is not None:
        monkeypatch.setattr(LoggerProvider, "__init__", made)


def _write_every_way(provider: LoggerProvider) -> None:
    logger = provider.get_logger("an.instrumentation")
    logger.emit(LogRecord(body=f"token {SECRET}", attributes={
        "http.url": f"https://api.example/x?key={SECRET}", "retries": 2,
        "headers": (f"Bearer {SECRET}", "x"), f"k.{SECRET}": "v"}))
    logger.emit(body={"request": {"auth": f"Bearer {SECRET}", "n": 1},
                      "list": [f"a {SECRET}", 3, [f"deep {SECRET}"]]},
                event_name=f"call {SECRET}", severity_text="WARN")
    logger.emit(body=f"{SECRET}".encode())
    try:
        raise ValueError(f"refused key {SECRET}")
    except ValueError as exc:
        logger.emit(body="failed", exception=exc)


def _exported(exporter: Any) -> tuple[str, list[Any]]:
    records = [r.log_record for r in exporter.get_finished_logs()]
    text = json.dumps([[repr(r.body), dict(r.attributes or {}), r.event_name]
                       for r in records], default=repr)
    return text, records


@pytest.mark.parametrize("dispatch", [SynchronousMultiLogRecordProcessor,
                                      ConcurrentMultiLogRecordProcessor])
def test_records_written_to_the_logs_api_are_redacted_before_any_processor(
        monkeypatch: pytest.MonkeyPatch, dispatch: type) -> None:
    remember([SECRET])  # as loading a config with it does
    _plain(monkeypatch)
    exporter = log_export.InMemoryLogRecordExporter()
    provider = LoggerProvider(multi_log_record_processor=dispatch())
    provider.add_log_record_processor(log_export.SimpleLogRecordProcessor(exporter))
    assert redact_logs(provider) and not redact_logs(provider)  # once
    _write_every_way(provider)
    text, records = _exported(exporter)
    assert SECRET not in text
    assert len(records) == 4
    assert records[0].body == "token ***"
    assert records[0].attributes["http.url"] == "https://api.example/x?key=***"
    assert records[0].attributes["retries"] == 2
    assert records[0].attributes["headers"] == ("Bearer ***", "x")
    assert records[1].body["request"] == {"auth": "Bearer ***", "n": 1}
    assert records[1].body["list"] == ["a ***", 3, ["deep ***"]]
    assert records[1].event_name == "call ***" and records[1].severity_text == "WARN"
    assert records[2].body == b"***"
    assert "refused key ***" in text  # the exception attributes
    provider.shutdown()


def test_a_record_that_cannot_be_redacted_is_withheld(monkeypatch: pytest.MonkeyPatch) -> None:
    _plain(monkeypatch)
    exporter = log_export.InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(log_export.SimpleLogRecordProcessor(exporter))
    redact_logs(provider)

    def broken(value: Any, depth: int = 0) -> Any:
        raise RuntimeError("a redaction bug")
    monkeypatch.setattr(log_redaction, "shown_any", broken)
    provider.get_logger("x").emit(body=f"token {SECRET}", attributes={"a": SECRET})
    text, records = _exported(exporter)
    assert SECRET not in text and records[0].body == log_redaction.WITHHELD
    provider.shutdown()


def test_a_logger_provider_made_later_redacts_too(monkeypatch: pytest.MonkeyPatch) -> None:
    remember([SECRET])
    _plain(monkeypatch)
    monkeypatch.setattr(LoggerProvider, "__init__", LoggerProvider.__init__)  # put back after
    redact_future_log_providers()  # the SDK is imported: it is patched now
    exporter = log_export.InMemoryLogRecordExporter()
    provider = LoggerProvider()
    provider.add_log_record_processor(log_export.SimpleLogRecordProcessor(exporter))
    _write_every_way(provider)
    text, _ = _exported(exporter)
    assert SECRET not in text and "token ***" in text
    provider.shutdown()
