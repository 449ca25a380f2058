"""What a fresh root log handler lets through once a ``LibraryLines`` filter of
``toolhost.gateway.liblogs`` is installed (the process's own such filters taken off every
handler meanwhile): shared by the gateway's and serve's tests of it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest

from toolhost.gateway import liblogs


def kept_records(monkeypatch: pytest.MonkeyPatch,
                 install: Callable[[], None]) -> Iterator[list[logging.LogRecord]]:
    """Yield the records a new root handler emits after ``install()`` put the filter on."""
    root = logging.getLogger()
    for handler in (*root.handlers, logging.lastResort):
        if handler is not None:
            monkeypatch.setattr(handler, "filters", [
                f for f in handler.filters if not isinstance(f, liblogs.LibraryLines)])
    got: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            got.append(record)

    handler = Keep()
    root.addHandler(handler)
    install()
    yield got
    root.removeHandler(handler)
