"""Whatever the ``mcp`` library or a dependency logs about an upstream, under whatever logger
name: one line, a few a minute, then counted; tracebacks only with --debug. toolhost's own
lines are untouched."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.library_lines import kept_records
from toolhost.gateway import liblogs

from .conftest import hostile_config


@pytest.fixture
def lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[logging.LogRecord]]:
    """What a fresh root handler with a fresh filter lets through."""
    fresh = liblogs.LibraryLines()
    monkeypatch.setattr(liblogs, "_filter", fresh)
    yield from kept_records(monkeypatch, liblogs.quiet_library_logs)
    fresh.held = 0  # held back by the test: not told on stderr at the session's exit


def _raise() -> BaseException:
    try:
        raise ValueError("bad params\nTraceback (most recent call last):\n  fake")
    except ValueError as exc:
        return exc


MCP_FILE = os.path.join(os.path.dirname(__import__("mcp").__file__), "client", "session.py")


@pytest.mark.parametrize(("name", "pathname"), [
    ("client", "x.py"), ("mcp.client.session", "x.py"), ("mcp", "x.py"), ("httpx", "x.py"),
    ("httpx2._client", "x.py"), ("httpcore2.x", "x.py"), ("anyio", "x.py"),
    ("root", "x.py"), ("some.new.name", MCP_FILE), ("", MCP_FILE), ("pydantic", "x.py"),
])
def test_a_library_record_is_one_line_and_rate_limited(
        lines: list[logging.LogRecord], name: str, pathname: str) -> None:
    logger = logging.getLogger(name) if name != "root" else logging.getLogger()
    exc = _raise()
    for k in range(500):
        record = logger.makeRecord(logger.name, logging.WARNING, pathname, 1,
                                   "Failed to validate notification: %s",
                                   (f"notifications/x{k}\nline two",),
                                   (type(exc), exc, exc.__traceback__))
        logger.handle(record)
    shown = [r for r in lines if not r.name.startswith("toolhost")]
    assert len(shown) == liblogs.SHOWN, [r.getMessage() for r in shown]
    for record in shown:
        assert record.exc_info is None and "\n" not in record.getMessage()
        assert "bad params" in record.getMessage()
    liblogs._filter.flush()
    assert "497 more lines" in lines[-1].getMessage()


def test_many_different_messages_share_one_budget(lines: list[logging.LogRecord]) -> None:
    logger = logging.getLogger("client")
    for k in range(300):
        logger.warning(f"message number {k} with no format string")  # each one its own
    assert len(lines) == liblogs.BUDGET


def test_toolhost_lines_are_left_alone(lines: list[logging.LogRecord]) -> None:
    logger = logging.getLogger("toolhost.gateway")
    for _ in range(50):
        logger.warning("upstream server 'h' x")
    assert len(lines) == 50


def test_a_flood_of_invalid_notifications_is_a_few_lines(tmp_path: Path) -> None:
    config = hostile_config(tmp_path)
    runs = [(subprocess.Popen(  # side by side
        [sys.executable, "-m", "toolhost", *flags, "call", str(config), "h.echo", "text=hi"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "HOSTILE_MODE": "badnotes",
             "HOSTILE_N": "3000" if not flags else "6"}), most)
        for flags, most in (((), 5), (("--debug",), None))]
    for process, most in runs:
        out, err = process.communicate(timeout=120)
        done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
        assert done.returncode == 0, done.stderr[-2000:]
        assert 'called echo with {"text": "hi"}' in done.stdout
        if most is None:
            assert "Traceback" in done.stderr  # --debug: the tracebacks are there
            continue
        assert "Traceback" not in done.stderr, done.stderr[:3000]
        assert len(done.stderr.splitlines()) <= most, done.stderr[:3000]
        assert "more lines about upstream servers (not shown" in done.stderr

