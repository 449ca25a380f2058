"""The OpenTelemetry SDK's own warnings (an exporter retrying a collector that is down, one
line per retry for as long as it is down) are a few lines a minute under ``serve``, ``run``
and ``call`` (``redact_telemetry`` puts ``liblogs``' filter for them on the handlers), then
counted; every other record is left as it is."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import opentelemetry.sdk  # noqa: F401 - the SDK set up, as under opentelemetry-instrument
import pytest

from tests.library_lines import kept_records
from toolhost.gateway import liblogs
from toolhost.serve.redact_telemetry import redact_telemetry

EXPORTER = "opentelemetry.exporter.otlp.proto.http.trace_exporter"


@pytest.fixture
def lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[logging.LogRecord]]:
    """What a fresh root handler lets through, with a fresh filter put on by serve's setup."""
    fresh = liblogs.LibraryLines(only=("opentelemetry",), teller="toolhost.serve",
                                 held=liblogs._telemetry.held_text)
    monkeypatch.setattr(liblogs, "_telemetry", fresh)
    yield from kept_records(monkeypatch, redact_telemetry)
    fresh.held = 0  # held back by the test: not told on stderr at the session's exit


def test_an_exporters_retries_are_a_few_lines_then_counted(
        lines: list[logging.LogRecord]) -> None:
    logger = logging.getLogger(EXPORTER)
    for attempt in range(200):
        logger.warning("Transient error %s encountered while exporting span batch, retrying "
                       "in %ss.", "Service Unavailable", 2 ** (attempt % 5))
    assert len(lines) == liblogs.SHOWN, [r.getMessage() for r in lines]
    liblogs._telemetry.flush()
    assert lines[-1].name == "toolhost.serve"
    assert "OpenTelemetry SDK logged 197 more lines" in lines[-1].getMessage()


@pytest.mark.parametrize("name", ["toolhost.serve", "uvicorn.error", "my_tool", "root"])
def test_other_records_are_left_alone(lines: list[logging.LogRecord], name: str) -> None:
    logger = logging.getLogger(name) if name != "root" else logging.getLogger()
    for _ in range(50):
        logger.warning("the same line again")
    assert len(lines) == 50
