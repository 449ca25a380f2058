"""HeldLogs: log records wait while a question is open, then go out in order; past
MAX_HELD they are counted and said in one line; ``remove`` writes what is held."""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Iterator

import pytest

from toolhost.runner import held_logs
from toolhost.runner.held_logs import HeldLogs


@pytest.fixture
def stream() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter("%(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield out
    finally:
        root.removeHandler(handler)


def test_records_wait_while_asking_and_go_out_in_order_after(
        stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(held_logs, "MAX_HELD", 3)
    asking = [True]
    held = HeldLogs(lambda: asking[0]).install()
    log = logging.getLogger("toolhost.call")
    try:
        for n in range(4):
            log.warning("line %d", n)
        worker = threading.Thread(target=log.warning, args=("from a thread",))
        worker.start()
        worker.join()
        assert stream.getvalue() == ""  # the question owns the terminal
        asking[0] = False
        log.warning("after")  # the first record after the question brings the held ones
    finally:
        held.remove()
    assert stream.getvalue().splitlines() == [
        "line 0", "line 1", "line 2",
        "(2 more log lines came while a question was open; the first 3 were kept)", "after"]


def test_remove_writes_what_is_held_and_takes_the_filter_off(stream: io.StringIO) -> None:
    held = HeldLogs(lambda: True).install()
    logging.getLogger("toolhost.call").warning("held to the end")
    assert stream.getvalue() == ""
    held.remove()
    assert stream.getvalue() == "held to the end\n"
    logging.getLogger("toolhost.call").warning("not held")
    assert stream.getvalue().endswith("not held\n")
