"""Every log handler other than toolhost's scrubbed stderr gets records with secrets hidden:
OpenTelemetry's log export (the SDK's own ``LoggingHandler`` with a real in-memory exporter)
and a plain handler a library adds, whether the secret is in the message's arguments, an
``extra`` field, an exception's message and traceback or ``stack_info``."""

from __future__ import annotations

import io
import json
import logging
import warnings
from collections.abc import Iterator

import pytest
from opentelemetry.sdk._logs import LoggerProvider, LoggingHandler
from opentelemetry.sdk._logs import export as log_export

from toolhost.redaction import ScrubbingStream, remember
from toolhost.serve.log_handlers import hide_secrets_in_handlers

SECRET = "svcTOKENzq7x42wv"


@pytest.fixture
def logger() -> Iterator[logging.Logger]:
    log = logging.getLogger("tests.serve.log_handlers")
    log.propagate = False
    call_handlers = logging.Logger.callHandlers
    yield log
    logging.Logger.callHandlers = call_handlers  # type: ignore[method-assign]
    log.handlers.clear()
    log.propagate = True


def test_other_handlers_only_see_records_with_secrets_hidden(logger: logging.Logger) -> None:
    remember([SECRET])  # as loading a config with it does
    with warnings.catch_warnings():  # names the SDK renamed or deprecated across 1.x
        warnings.simplefilter("ignore", DeprecationWarning)
        exporter = getattr(log_export, "InMemoryLogRecordExporter",
                           getattr(log_export, "InMemoryLogExporter", None))()
        provider = LoggerProvider()
        provider.add_log_record_processor(log_export.SimpleLogRecordProcessor(exporter))
        otel = LoggingHandler(logger_provider=provider)
    text = io.StringIO()
    plain = logging.StreamHandler(text)
    plain.setFormatter(logging.Formatter("%(message)s"))
    own = logging.StreamHandler(ScrubbingStream(io.StringIO()))  # toolhost's stderr one
    logger.addHandler(plain)  # a handler there when serve starts ...
    hide_secrets_in_handlers()
    assert not hide_secrets_in_handlers()  # the hook goes in once
    for handler in (otel, own):  # ... and handlers added after (an embedding program's)
        logger.addHandler(handler)
    seen: list[logging.LogRecord] = []
    own.handle = lambda record: bool(seen.append(record))  # type: ignore[method-assign]

    logger.warning("using key %s", SECRET, extra={"token": SECRET, "pair": [SECRET]})
    try:
        raise ValueError(f"upstream said: bad key {SECRET}")
    except ValueError:
        logger.exception("call failed for %r", {"key": SECRET}, stack_info=True)
    logger.error({"object": SECRET})  # a message that is not a string

    records = exporter.get_finished_logs()
    assert len(records) == 3
    exported = json.dumps([{"body": str(r.log_record.body),
                            "attributes": {k: str(v) for k, v in
                                           (r.log_record.attributes or {}).items()}}
                           for r in records])
    assert "using key ***" in exported and "upstream said: bad key ***" in exported
    assert "ValueError" in exported and "Traceback" in exported  # type and stack kept
    written = text.getvalue()
    assert "using key ***" in written and "Traceback" in written
    assert SECRET not in exported and SECRET not in written
    assert seen and seen[0].args == (SECRET,)  # toolhost's own (scrubbed) one: the record itself
    provider.shutdown()


def test_the_last_resort_handler_gets_the_record_with_secrets_hidden(
        logger: logging.Logger, monkeypatch: pytest.MonkeyPatch) -> None:
    remember([SECRET])
    text = io.StringIO()  # stands for a stderr nobody scrubs (``toolhost call``'s)
    monkeypatch.setattr(logging, "lastResort", logging.StreamHandler(text))
    hide_secrets_in_handlers()
    monkeypatch.setattr(logger, "handlers", [])  # none at all (pytest put its own there)
    logger.warning("no handler for key %s", SECRET)
    assert text.getvalue() == "no handler for key ***\n"
